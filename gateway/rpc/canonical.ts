/**
 * Canonical JSON of call params: object keys sorted and hex strings lower-cased, so `{to,data}` and `{data,to}` or
 * `0xAB` and `0xab` share one cache entry (proxyd hashes raw bytes and misses these).
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(/^0x[0-9a-fA-F]*$/.test(value) ? value.toLowerCase() : value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

/** A short non-cryptographic hash (FNV-1a, 32 bit, hex) for the per-call log's params_hash. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
