import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { EVM, EVMError } from '@ethereumjs/evm';
import { describe, expect, it } from 'vitest';
import { Blake2fMemo, MEMO_MIN_ROUNDS } from '../../core/exec/evm/blake2fMemo.ts';
import { blake2fMemo, blake2fPrecompile, type PrecompileCall, type PrecompileResult } from '../../core/exec/evm/blake2fPrecompile.ts';
import { EvmHost } from '../../core/exec/evmHost.ts';
import { blake2fCompress } from '../../core/primitives/blake2f.ts';
import { JournaledState } from '../../core/state/journaledState.ts';
import { MemoryState } from '../../core/state/memoryState.ts';

const ADDRESS = '0000000000000000000000000000000000000009';
// EIP-152's test vector 5: 12 rounds of F over "abc", final block.
const H =
  '48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b';
const VECTOR5 = `0000000c${H}616263${'00'.repeat(125)}03${'00'.repeat(15)}01`;
const VECTOR5_OUT =
  'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923';

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Shanghai });
const library = new EVM({ common }).precompiles.get(ADDRESS) as unknown as (
  o: PrecompileCall & { _EVM: unknown },
) => Promise<PrecompileResult>;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const observable = (r: PrecompileResult): unknown => ({ gas: r.executionGasUsed, error: r.exceptionError?.error, out: hex(r.returnValue) });

/** A 213-byte input with `rounds`, pseudo-random h, m and t, and `last` as the final byte. */
function input(rounds: number, seed: number, last = 1): Uint8Array {
  const data = new Uint8Array(213);
  new DataView(data.buffer).setUint32(0, rounds);
  for (let i = 4; i < 212; i++) data[i] = (i * 131 + seed * 29 + (i >> 3) * seed) & 0xff;
  data[212] = last;
  return data;
}

describe('BLAKE2F precompile on WebAssembly (issue #18)', () => {
  it('default: gives EIP-152 test vector 5', () => {
    const data = Buffer.from(VECTOR5, 'hex');
    expect(hex(blake2fCompress(12, data.subarray(4, 212), true))).toBe(VECTOR5_OUT);
  });

  it('default: matches the library precompile in output, gas and errors', async () => {
    const cases: [Uint8Array, bigint][] = [];
    for (const rounds of [0, 1, 9, 10, 11, 12, 99, 1000, 100_001])
      for (const last of [0, 1]) cases.push([input(rounds, rounds + last, last), 10n ** 9n]);
    cases.push([input(12, 3, 2), 10n ** 9n]); // final byte neither 0 nor 1
    cases.push([input(12, 3).subarray(0, 212), 10n ** 9n]); // short
    cases.push([Uint8Array.from([...input(12, 3), 0]), 10n ** 9n]); // long
    cases.push([input(1000, 4), 999n]); // out of gas
    cases.push([input(1000, 4), 1000n]); // exactly enough
    for (const [data, gasLimit] of cases) {
      const expected = observable(await library({ data, gasLimit, common, _EVM: undefined }));
      expect(observable(blake2fPrecompile({ data, gasLimit, common })), `${data.length} bytes, gas ${gasLimit}`).toEqual(expected);
    }
  });

  it('behavior: the node EVMs run it at 0x09', () => {
    const host = new EvmHost(1337n, 'Shanghai', new JournaledState(new MemoryState()));
    expect(host.evm.precompiles.get(ADDRESS)).toBe(blake2fPrecompile);
    expect(EVMError.errorMessages.OUT_OF_RANGE).toBeDefined();
  });

  it('behavior: a heavy call repeated is answered from the memo with the same output and gas', () => {
    const data = input(MEMO_MIN_ROUNDS, 7);
    const computed = hex(blake2fCompress(MEMO_MIN_ROUNDS, data.subarray(4, 212), true));
    const hits = blake2fMemo.hits;
    const first = blake2fPrecompile({ data, gasLimit: 10n ** 9n, common });
    const again = blake2fPrecompile({ data: data.slice(), gasLimit: 10n ** 9n, common });
    expect(blake2fMemo.hits).toBe(hits + 1);
    expect(observable(again)).toEqual(observable(first));
    expect(hex(again.returnValue)).toBe(computed);
    again.returnValue.fill(0); // the caller's copy: the memo keeps its own
    expect(hex(blake2fPrecompile({ data, gasLimit: 10n ** 9n, common }).returnValue)).toBe(computed);
    // Not enough gas is still out of gas, before the memo is asked.
    const short = blake2fPrecompile({ data, gasLimit: BigInt(MEMO_MIN_ROUNDS) - 1n, common });
    expect(short.exceptionError?.error).toBe(EVMError.errorMessages.OUT_OF_GAS);
    expect(blake2fMemo.hits).toBe(hits + 2);
  });

  it('behavior: the memo is keyed by the exact input and drops the oldest beyond its capacity', () => {
    const heavy = input(MEMO_MIN_ROUNDS, 8, 0);
    const otherFlag = heavy.slice();
    otherFlag[212] = 1;
    const outFlag0 = blake2fPrecompile({ data: heavy, gasLimit: 10n ** 9n, common }).returnValue;
    const hits = blake2fMemo.hits;
    const outFlag1 = blake2fPrecompile({ data: otherFlag, gasLimit: 10n ** 9n, common }).returnValue;
    expect(blake2fMemo.hits).toBe(hits);
    expect(hex(outFlag1)).toBe(hex(blake2fCompress(MEMO_MIN_ROUNDS, otherFlag.subarray(4, 212), true)));
    expect(hex(outFlag1)).not.toBe(hex(outFlag0));
    // Below the threshold nothing is kept.
    const light = input(MEMO_MIN_ROUNDS - 1, 9);
    blake2fPrecompile({ data: light, gasLimit: 10n ** 9n, common });
    blake2fPrecompile({ data: light, gasLimit: 10n ** 9n, common });
    expect(blake2fMemo.hits).toBe(hits);

    const memo = new Blake2fMemo(2);
    const [a, b, c] = [input(1, 1), input(1, 2), input(1, 3)];
    memo.put(a, Uint8Array.of(1));
    memo.put(b, Uint8Array.of(2));
    expect(memo.get(a)).toEqual(Uint8Array.of(1)); // a is now the newest
    memo.put(c, Uint8Array.of(3));
    expect(memo.size).toBe(2);
    expect(memo.get(b)).toBeUndefined();
    expect(memo.get(a)).toEqual(Uint8Array.of(1));
    expect(memo.get(c)).toEqual(Uint8Array.of(3));
  });
});
