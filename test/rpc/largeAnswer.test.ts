/**
 * Large cached results (a full block, a block's receipts) go out over HTTP as the cache entry's memoized UTF-8 bytes:
 * the same bytes as the text answer, one encoding per cache entry however many clients ask.
 */
import { describe, expect, test } from 'vitest';
import { EncodingCache } from '../../core/rpc/cache.ts';
import { Dispatcher } from '../../core/rpc/dispatch.ts';
import { rpcOptions } from '../../core/rpc/options.ts';
import { method } from '../../core/rpc/registry.ts';

const cache = new EncodingCache(8, 10_000_000);
// 200 KB of JSON with multi-byte characters, so characters and bytes differ.
const big = JSON.stringify(Array.from({ length: 4000 }, (_, i) => ({ i, s: 'é→' + 'x'.repeat(40) })));
cache.set('k', big);
const dispatcher = new Dispatcher(rpcOptions({}), { test_big: method([], () => cache.getRaw('k')), test_small: method([], () => '0x1') });
const call = (id: unknown, m: string) => JSON.stringify({ jsonrpc: '2.0', id, method: m, params: [] });

describe('large answers as bytes', () => {
  test('default: the bytes equal the UTF-8 of the text answer, for any id', async () => {
    for (const id of [1, 'abc', null]) {
      const text = await dispatcher.handle(call(id, 'test_big'), { clientIp: '', transport: 'http' });
      const bytes = await dispatcher.handle(call(id, 'test_big'), { clientIp: '', transport: 'http', acceptsBytes: true });
      expect(typeof text.body).toBe('string');
      expect(Buffer.isBuffer(bytes.body)).toBe(true);
      expect((bytes.body as Buffer).equals(Buffer.from(text.body as string, 'utf8'))).toBe(true);
      expect(JSON.parse((bytes.body as Buffer).toString('utf8'))).toEqual({ jsonrpc: '2.0', id, result: JSON.parse(big) });
    }
  });

  test('behavior: the cache hands out one entry instance, so its bytes are encoded once', () => {
    const a = cache.getRaw('k');
    expect(a).toBe(cache.getRaw('k'));
    expect(a?.utf8()).toBe(a?.utf8());
  });

  test('behavior: small results and batches stay text', async () => {
    const small = await dispatcher.handle(call(1, 'test_small'), { clientIp: '', transport: 'http', acceptsBytes: true });
    expect(small.body).toBe('{"jsonrpc":"2.0","id":1,"result":"0x1"}');
    const batch = await dispatcher.handle('[' + call(1, 'test_big') + ']', { clientIp: '', transport: 'http', acceptsBytes: true });
    expect(typeof batch.body).toBe('string');
  });
});
