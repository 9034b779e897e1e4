/** compact(): what the pool posts between threads carries only the bytes it names, not the buffers they view. */
import { describe, expect, it } from 'vitest';
import { compact } from '../../core/rpcPool/compact.ts';
import { hexToBytes } from '../../core/primitives/hex.ts';

describe('compact', () => {
  it('behavior: views into a bigger buffer (a request parsed by hexToBytes: the 8 KiB Buffer pool) become their own buffers', () => {
    const to = hexToBytes('0x' + 'bb'.repeat(20));
    expect(to.buffer.byteLength).toBeGreaterThan(20);
    const req = { id: 1, params: { req: { to, data: hexToBytes('0x12345678') }, at: { number: 5n } } };
    const out = compact(req);
    expect(out.params.req.to.buffer.byteLength).toBe(20);
    expect(out.params.req.data.buffer.byteLength).toBe(4);
    expect(out.params.req.to).toEqual(to);
    expect(out.params.at).toBe(req.params.at);
    // The clone the thread hop makes is now the bytes' size.
    expect(structuredClone(out).params.req.to.buffer.byteLength).toBe(20);
  });

  it('behavior: Maps (state overrides) are walked; values already compact are kept as they are', () => {
    const code = hexToBytes('0x6001');
    const overrides = new Map([['0x' + 'aa'.repeat(20), { code, balance: 1n }]]);
    const out = compact({ overrides });
    const entry = out.overrides.get('0x' + 'aa'.repeat(20));
    expect(entry?.code.buffer.byteLength).toBe(2);
    expect(entry?.balance).toBe(1n);
    const own = { overrides: new Map([['k', { code: new Uint8Array(2) }]]) };
    expect(compact(own)).toBe(own);
  });
});
