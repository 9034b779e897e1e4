/**
 * The wire format between the pool and its workers: one ArrayBuffer per chunk, moved (transferred) rather than
 * copied. Each item is 97 bytes: hash (32) | r (32, big-endian) | s (32) | recovery (1). The answer is 20 bytes per
 * item. Checks of the input happen here, before any work, so a bad item is reported with its index.
 */
import { recoverAddress, SECP256K1_N, type Secp256k1Backend } from '../../primitives/secp256k1/index.ts';
import { SenderRecoveryError, type RecoveryItem } from './types.ts';

/** Bytes per packed item. */
export const ITEM_BYTES = 97;
/** Bytes per recovered address. */
const ADDRESS_BYTES = 20;

/** Throws `RECOVERY_BAD_INPUT` with the index of the first malformed item. */
export function checkItems(items: readonly RecoveryItem[], offset = 0): void {
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    const bad = (why: string): never => {
      throw new SenderRecoveryError('RECOVERY_BAD_INPUT', `sender recovery item ${offset + i}: ${why}`, { index: offset + i });
    };
    if (!(it?.hash instanceof Uint8Array) || it.hash.length !== 32) bad('hash must be 32 bytes');
    if (typeof it.r !== 'bigint' || it.r < 1n || it.r >= SECP256K1_N) bad('r out of range [1, n-1]');
    if (typeof it.s !== 'bigint' || it.s < 1n || it.s >= SECP256K1_N) bad('s out of range [1, n-1]');
    if (it.recovery !== 0 && it.recovery !== 1) bad('recovery must be 0 or 1');
  }
}

function writeScalar(v: bigint, out: Uint8Array, offset: number): void {
  const hex = v.toString(16).padStart(64, '0');
  out.set(Buffer.from(hex, 'hex'), offset);
}

function readScalar(bytes: Uint8Array, offset: number): bigint {
  return BigInt('0x' + Buffer.from(bytes.buffer, bytes.byteOffset + offset, 32).toString('hex'));
}

/** Packs checked items into one transferable buffer. */
export function packItems(items: readonly RecoveryItem[]): ArrayBuffer {
  const buf = new ArrayBuffer(items.length * ITEM_BYTES);
  const out = new Uint8Array(buf);
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    const o = i * ITEM_BYTES;
    out.set(it.hash, o);
    writeScalar(it.r, out, o + 32);
    writeScalar(it.s, out, o + 64);
    out[o + 96] = it.recovery;
  }
  return buf;
}

/** What a chunk recovery returns: the addresses, and the first failing index (-1 when all recovered). */
export interface PackedResult {
  addresses: ArrayBuffer;
  failedIndex: number;
  failure?: string;
}

/** Recovers every packed item; a failing item leaves 20 zero bytes and is reported by index. */
export function recoverPacked(packed: ArrayBuffer, backend: Secp256k1Backend): PackedResult {
  const input = new Uint8Array(packed);
  const count = input.length / ITEM_BYTES;
  const addresses = new ArrayBuffer(count * ADDRESS_BYTES);
  const out = new Uint8Array(addresses);
  let failedIndex = -1;
  let failure: string | undefined;
  for (let i = 0; i < count; i++) {
    const o = i * ITEM_BYTES;
    try {
      const addr = recoverAddress(input.subarray(o, o + 32), readScalar(input, o + 32), readScalar(input, o + 64), input[o + 96], backend);
      out.set(addr, i * ADDRESS_BYTES);
    } catch (err) {
      if (failedIndex < 0) {
        failedIndex = i;
        failure = (err as Error).message;
      }
    }
  }
  return { addresses, failedIndex, failure };
}

/** Splits a packed result into per-item address views (no copy). */
export function unpackAddresses(addresses: ArrayBuffer): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let o = 0; o < addresses.byteLength; o += ADDRESS_BYTES) out.push(new Uint8Array(addresses, o, ADDRESS_BYTES));
  return out;
}
