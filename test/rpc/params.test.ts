import { describe, expect, test } from 'vitest';
import { blockNumber, blockNumberOrHash } from '../../core/rpc/blockParams.ts';
import { callRequest, filterCriteria } from '../../core/rpc/callParams.ts';
import { EncodingCache } from '../../core/rpc/cache.ts';
import { encodeJson, exceedsDepth, RawJson } from '../../core/rpc/json.ts';
import { ParamError, address, data, quantity, storageKey, uint64 } from '../../core/rpc/params.ts';
import { revertReason } from '../../core/rpc/revert.ts';
import { TokenBuckets } from '../../core/rpc/limits/tokenBucket.ts';

const msg = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};

describe('params', () => {
  test('error: hexutil messages for quantities and data', () => {
    expect(msg(() => uint64('0x'))).toBe('json: cannot unmarshal hex string "0x" into Go value of type hexutil.Uint64');
    expect(msg(() => uint64(''))).toBe('json: cannot unmarshal empty hex string into Go value of type hexutil.Uint64');
    expect(msg(() => uint64(5))).toBe('json: cannot unmarshal non-string into Go value of type hexutil.Uint64');
    expect(msg(() => quantity('0x' + '1'.repeat(65)))).toBe(
      'json: cannot unmarshal hex number > 256 bits into Go value of type *hexutil.Big',
    );
    expect(msg(() => data('0xabc'))).toBe('json: cannot unmarshal hex string of odd length into Go value of type hexutil.Bytes');
    expect(msg(() => address('0x' + 'zz'.repeat(20)))).toBe(
      'json: cannot unmarshal invalid hex string into Go value of type common.Address',
    );
    expect(quantity('0x0')).toBe(0n);
    expect(uint64('0xffffffffffffffff')).toBe(2n ** 64n - 1n);
  });

  test('args: block selectors (tags, numbers, EIP-1898 objects, bare hashes)', () => {
    expect(blockNumber('safe')).toEqual({ tag: 'safe' });
    expect(blockNumber('0x10')).toEqual({ number: 16n });
    expect(msg(() => blockNumber('0x8000000000000000'))).toBe('block number larger than int64');
    const h = '0x' + 'ab'.repeat(32);
    expect(blockNumberOrHash(h)).toMatchObject({ requireCanonical: false });
    expect(blockNumberOrHash({ blockHash: h, requireCanonical: true })).toMatchObject({ requireCanonical: true });
    expect(blockNumberOrHash({ blockNumber: '0x1' })).toEqual({ number: 1n });
    expect(msg(() => blockNumberOrHash({ blockNumber: '0x1', blockHash: h }))).toBe(
      'cannot specify both BlockHash and BlockNumber, choose one or the other',
    );
    expect(msg(() => blockNumberOrHash(7))).toBe('json: cannot unmarshal number into Go value of type string');
  });

  test('args: call objects and filters', () => {
    expect(callRequest({ to: '0x' + '11'.repeat(20), value: '0x1', input: '0x01' })).toEqual({
      to: new Uint8Array(20).fill(0x11),
      value: 1n,
      data: Uint8Array.of(1),
    });
    expect(msg(() => callRequest({ gasPrice: '0x1', maxFeePerGas: '0x1' }))).toBe(
      'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
    );
    expect(filterCriteria({ topics: [null, ['0x' + '00'.repeat(32), null]] }).topics).toEqual([null, null]);
    expect(msg(() => filterCriteria({ topics: [[], [], [], [], []] }))).toBe('exceed max topics');
    expect(msg(() => filterCriteria({ topics: ['0x12'] }))).toBe('invalid topic(s)');
    expect(storageKey('0x1')).toEqual(Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 1 : 0)));
    expect(new ParamError('x')).toBeInstanceOf(Error);
  });

  test('behavior: revert reasons decode Error(string) and Panic(uint256)', () => {
    const panic = Buffer.from('4e487b71' + '00'.repeat(31) + '11', 'hex');
    expect(revertReason(panic)).toBe('arithmetic underflow or overflow');
    expect(revertReason(Uint8Array.of(1, 2, 3, 4, 5))).toBeNull();
  });

  test('behavior: JSON splicing, depth scan, cache bounds, token buckets', () => {
    expect(encodeJson([new RawJson('{"a":1}'), { b: new RawJson('[2]'), c: undefined }])).toBe('[{"a":1},{"b":[2]}]');
    expect(exceedsDepth('[[["[[[[[["]]]', 3)).toBe(false);
    expect(exceedsDepth('[[[[1]]]]', 3)).toBe(true);
    const cache = new EncodingCache(2, 20); // bytes: text and its UTF-8 copy, 2 per character
    cache.set('a', '1234');
    cache.set('b', '1234');
    cache.get('a');
    cache.set('c', '1234');
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['1234', undefined, '1234']);
    cache.set('d', '12345678');
    expect(cache.entries).toBe(1);
    let now = 0;
    const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 2, maxClients: 2 }, () => now);
    expect(buckets.take('10.0.0.1', 2).ok).toBe(true);
    expect(buckets.take('10.0.0.1', 1)).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(buckets.take('127.0.0.1', 100).ok).toBe(true);
    now += 1000;
    expect(buckets.take('10.0.0.1', 1).ok).toBe(true);
  });
});
