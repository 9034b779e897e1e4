/**
 * What crosses a thread boundary is structured-cloned, and cloning a Uint8Array copies its whole ArrayBuffer, not
 * only the bytes it views. The pool's messages are full of small views into big buffers: a header's fields are
 * subarrays of the block record the chain thread sent (kilobytes to megabytes), an eth_call's return data a subarray
 * of the EVM's memory. Profiled on bench:rpc-isolation's cheap eth_call, posting the job and the reply took most of
 * the main thread's time per call. `compact` copies such views to buffers of their own size first (the clone then
 * copies a few bytes), and leaves everything else as it is.
 */

/** `value` with every Uint8Array that views part of a bigger buffer replaced by a copy of its bytes. */
export function compact<T>(value: T): T {
  return compactValue(value) as T;
}

function compactValue(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Uint8Array) return v.byteLength === v.buffer.byteLength ? v : new Uint8Array(v); // a copy (Buffer#slice would be a view)
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const c = compactValue(v[i]);
      if (c !== v[i]) (out ??= v.slice())[i] = c;
    }
    return out ?? v;
  }
  // State overrides: address -> fields (code, storage values), each a view into the request's bytes.
  if (v instanceof Map) {
    let changed = false;
    const out = new Map<unknown, unknown>();
    for (const [key, x] of v) {
      const c = compactValue(x);
      if (c !== x) changed = true;
      out.set(key, c);
    }
    return changed ? out : v;
  }
  // Only plain objects and Maps are walked (class instances and the like are cloned, or refused, as they are).
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return v;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[key];
    const c = compactValue(x);
    if (c !== x) (out ??= { ...(v as Record<string, unknown>) })[key] = c;
  }
  return out ?? v;
}
