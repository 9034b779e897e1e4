/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) in pure JavaScript, slicing-by-8. Kept as the fallback
 * where the native addon cannot load and as the cross-check for it (docs/decisions: CRC-32C implementation).
 */

const POLY = 0x82f63b78;

function buildTables(): Uint32Array[] {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    tables[0][i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) {
    for (let t = 1; t < 8; t++) tables[t][i] = (tables[t - 1][i] >>> 8) ^ tables[0][tables[t - 1][i] & 0xff];
  }
  return tables;
}

const [T0, T1, T2, T3, T4, T5, T6, T7] = buildTables();

/** CRC-32C of `data`, continuing from `initial` (the CRC of the bytes before, 0 to start). */
export function crc32cJs(data: Uint8Array, initial = 0): number {
  let crc = ~initial >>> 0;
  let i = 0;
  const n = data.length;
  const end8 = n - (n % 8);
  while (i < end8) {
    const lo = (crc ^ (data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24))) >>> 0;
    crc =
      T7[lo & 0xff] ^
      T6[(lo >>> 8) & 0xff] ^
      T5[(lo >>> 16) & 0xff] ^
      T4[lo >>> 24] ^
      T3[data[i + 4]] ^
      T2[data[i + 5]] ^
      T1[data[i + 6]] ^
      T0[data[i + 7]];
    i += 8;
  }
  while (i < n) crc = T0[(crc ^ data[i++]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}
