import { describe, expect, it } from 'vitest';
import { bytesToHex } from '../../../core/primitives/hex.ts';
import { applyAlloc } from '../../../core/state/alloc.ts';
import { MemoryState } from '../../../core/state/memoryState.ts';
import { allocOf, vBig } from '../../../core/exec/vectors/json.ts';
import { runStateTest, type StateTestJson } from '../../../core/exec/vectors/stateTest.ts';

const EMPTY_LOGS = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
const SENDER_KEY = '0x45a915e4d060149eb4365960e6a7a45f334393093061116b197e3240065ff2d8';

/** A transfer whose value is written in the vectors' "0x:bigint" form (wider than 256 bits). */
function overflowingValueTest(expectException: string | undefined): StateTestJson {
  const pre = {
    '0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b': { balance: '0x3b9aca00', code: '0x', nonce: '0x00', storage: {} },
    '0xd0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0': { balance: '0x0a', code: '0x', nonce: '0x00', storage: {} },
  };
  // An invalid transaction changes nothing, so the expected root is the pre state's (the coinbase stays absent).
  const preRoot = bytesToHex(applyAlloc(new MemoryState(), allocOf(pre)));
  return {
    env: {
      currentBaseFee: '0x0a',
      currentCoinbase: '0x2adc25665018aa1fe0e6bc666dac8fc2697ff9ba',
      currentDifficulty: '0x020000',
      currentGasLimit: '0x05500000',
      currentNumber: '0x01',
      currentRandom: `0x${'00'.repeat(31)}01`,
      currentTimestamp: '0x03e8',
    },
    pre,
    post: {
      Cancun: [
        { hash: preRoot, logs: EMPTY_LOGS, indexes: { data: 0, gas: 0, value: 0 }, ...(expectException ? { expectException } : {}) },
      ],
    },
    transaction: {
      data: ['0x'],
      gasLimit: ['0x5208'],
      gasPrice: '0x64',
      nonce: '0x00',
      secretKey: SENDER_KEY,
      to: '0xd0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0',
      value: [`0x:bigint 0x1${'00'.repeat(32)}`],
    },
  };
}

describe('statetest runner reads every quantity form of the vectors', () => {
  it('unit: "0x:bigint 0x..." is the number after the prefix', () => {
    expect(vBig('0x:bigint 0x10000000000000000000000000000000000000000000000000000000000000001')).toBe((1n << 256n) + 1n);
  });

  it('behavior: a value wider than 256 bits makes the transaction invalid (TR_RLP_WRONGVALUE), state unchanged', async () => {
    const [result] = await runStateTest('overflow', overflowingValueTest('TR_RLP_WRONGVALUE'), ['Cancun']);
    expect(result).toEqual({ name: 'overflow/Cancun/0 (d0 g0 v0)', ok: true });
  });

  it('behavior: without expectException the same case fails as an unexpected exception, not a runner error', async () => {
    const [result] = await runStateTest('overflow', overflowingValueTest(undefined), ['Cancun']);
    expect(result?.ok).toBe(false);
    expect(result?.reason).toMatch(/^unexpected exception: value higher than 2\^256-1/);
  });
});

const SENDER = '0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b';
const RECIPIENT = '0xd0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0';
const COINBASE = '0x2adc25665018aa1fe0e6bc666dac8fc2697ff9ba';

/** The root of an allocation of plain accounts (no code, no storage), computed without the executor. */
function rootOf(accounts: Record<string, { balance: bigint; nonce: bigint }>): string {
  const alloc = Object.fromEntries(
    Object.entries(accounts).map(([a, { balance, nonce }]) => [
      a,
      { balance: `0x${balance.toString(16)}`, nonce: `0x${nonce.toString(16)}`, code: '0x', storage: {} },
    ]),
  );
  return bytesToHex(applyAlloc(new MemoryState(), allocOf(alloc)));
}

/** A 21000-gas transfer of 1 wei in a London-or-later block; `env` and `fees` vary what the runner must fill in. */
function transferTest(
  env: Record<string, string>,
  fees: Record<string, string>,
  post: Record<string, StateTestJson['post'][string]>,
): StateTestJson {
  return {
    env: {
      currentCoinbase: COINBASE,
      currentDifficulty: '0x020000',
      currentGasLimit: '0x05500000',
      currentNumber: '0x01',
      currentRandom: `0x${'00'.repeat(29)}020000`,
      currentTimestamp: '0x03e8',
      ...env,
    },
    pre: { [SENDER]: { balance: '0x3b9aca00', code: '0x', nonce: '0x00', storage: {} } },
    post,
    transaction: { data: ['0x'], gasLimit: ['0x5208'], nonce: '0x00', secretKey: SENDER_KEY, to: RECIPIENT, value: ['0x01'], ...fees },
  };
}

describe('statetest runner fills in what a vector leaves out, as geth runs it', () => {
  const entry = (hash: string) => [{ hash, logs: EMPTY_LOGS, indexes: { data: 0, gas: 0, value: 0 } }];

  it('behavior: a London case without currentBaseFee runs with base fee 0x0a (a 10 wei gas price leaves the coinbase no tip)', async () => {
    // 1e9 - 1 wei - 21000 gas x 10 wei, all of it burnt: the coinbase gets nothing and stays absent.
    const hash = rootOf({ [SENDER]: { balance: 1_000_000_000n - 1n - 210_000n, nonce: 1n }, [RECIPIENT]: { balance: 1n, nonce: 0n } });
    const test = transferTest({}, { gasPrice: '0x0a' }, { London: entry(hash), Cancun: entry(hash) });
    expect(await runStateTest('nobasefee', test, ['London', 'Cancun'])).toEqual([
      { name: 'nobasefee/London/0 (d0 g0 v0)', ok: true },
      { name: 'nobasefee/Cancun/0 (d0 g0 v0)', ok: true },
    ]);
  });

  it('behavior: a fee-market transaction without maxPriorityFeePerGas tips up to its fee cap', async () => {
    // maxFeePerGas 20, base fee 10: the sender pays 21000 x 20, the coinbase gets 21000 x 10.
    const hash = rootOf({
      [SENDER]: { balance: 1_000_000_000n - 1n - 420_000n, nonce: 1n },
      [RECIPIENT]: { balance: 1n, nonce: 0n },
      [COINBASE]: { balance: 210_000n, nonce: 0n },
    });
    const test = transferTest({ currentBaseFee: '0x0a' }, { maxFeePerGas: '0x14' }, { Shanghai: entry(hash) });
    expect(await runStateTest('notip', test, ['Shanghai'])).toEqual([{ name: 'notip/Shanghai/0 (d0 g0 v0)', ok: true }]);
  });
});

describe('statetest runner applies the per-transaction blob bound of Osaka (EIP-7594)', () => {
  /** A blob transaction with `blobs` versioned hashes to an account without code, in a block that allows 9 blobs. */
  function blobTest(blobs: number, fork: string, expectException: string | undefined): StateTestJson {
    const pre = { [SENDER]: { balance: '0x3b9aca00', code: '0x', nonce: '0x00', storage: {} } };
    // Invalid: nothing changes (the coinbase stays absent), so the expected root is the pre state's.
    const preRoot = bytesToHex(applyAlloc(new MemoryState(), allocOf(pre)));
    return {
      env: {
        currentBaseFee: '0x0a',
        currentCoinbase: COINBASE,
        currentDifficulty: '0x00',
        currentExcessBlobGas: '0x00',
        currentGasLimit: '0x05500000',
        currentNumber: '0x01',
        currentRandom: `0x${'00'.repeat(32)}`,
        currentTimestamp: '0x03e8',
      },
      pre,
      post: {
        [fork]: [
          { hash: preRoot, logs: EMPTY_LOGS, indexes: { data: 0, gas: 0, value: 0 }, ...(expectException ? { expectException } : {}) },
        ],
      },
      transaction: {
        data: ['0x'],
        gasLimit: ['0x5208'],
        maxFeePerGas: '0x0a',
        maxPriorityFeePerGas: '0x00',
        maxFeePerBlobGas: '0x01',
        blobVersionedHashes: Array.from({ length: blobs }, (_, i) => `0x01${i.toString(16).padStart(62, '0')}`),
        nonce: '0x00',
        secretKey: SENDER_KEY,
        to: RECIPIENT,
        value: ['0x00'],
      },
    };
  }

  it('behavior: 7 blobs in Osaka are an invalid transaction (TYPE_3_TX_BLOB_COUNT_EXCEEDED), state unchanged', async () => {
    const [result] = await runStateTest('blobs7', blobTest(7, 'Osaka', 'TransactionException.TYPE_3_TX_BLOB_COUNT_EXCEEDED'), ['Osaka']);
    expect(result).toEqual({ name: 'blobs7/Osaka/0 (d0 g0 v0)', ok: true });
  });

  it('behavior: without expectException the same case fails naming the bound', async () => {
    const [result] = await runStateTest('blobs7', blobTest(7, 'Osaka', undefined), ['Osaka']);
    expect(result?.ok).toBe(false);
    expect(result?.reason).toMatch(/^unexpected exception: invalid transaction: blob transaction has too many blobs: 7 > 6/);
  });
});

describe('statetest runner: the expected root of an invalid transaction', () => {
  it('behavior: with an empty coinbase account in pre, the untouched pre state is the expected root (as fillers leave it)', async () => {
    const pre = {
      [SENDER]: { balance: '0x3b9aca00', code: '0x', nonce: '0x00', storage: {} },
      [COINBASE]: { balance: '0x00', code: '0x', nonce: '0x00', storage: {} },
    };
    const preRoot = bytesToHex(applyAlloc(new MemoryState(), allocOf(pre)));
    const test: StateTestJson = {
      ...transferTest({ currentBaseFee: '0x0a' }, { gasPrice: '0x0a', nonce: '0x05' }, {}),
      pre,
      post: { Cancun: [{ hash: preRoot, logs: EMPTY_LOGS, indexes: { data: 0, gas: 0, value: 0 }, expectException: 'TR_NonceTooHigh' }] },
    };
    expect(await runStateTest('emptycoinbase', test, ['Cancun'])).toEqual([{ name: 'emptycoinbase/Cancun/0 (d0 g0 v0)', ok: true }]);
  });

  it('error: a root that is neither the pre state nor the touched one still fails with both roots named', async () => {
    const pre = { [SENDER]: { balance: '0x3b9aca00', code: '0x', nonce: '0x00', storage: {} } };
    const wrong = `0x${'22'.repeat(32)}`;
    const test: StateTestJson = {
      ...transferTest({ currentBaseFee: '0x0a' }, { gasPrice: '0x0a', nonce: '0x05' }, {}),
      pre,
      post: { Cancun: [{ hash: wrong, logs: EMPTY_LOGS, indexes: { data: 0, gas: 0, value: 0 }, expectException: 'TR_NonceTooHigh' }] },
    };
    const [result] = await runStateTest('wrongroot', test, ['Cancun']);
    expect(result?.ok).toBe(false);
    expect(result?.reason).toBe(`stateRoot: expected ${wrong}, got ${bytesToHex(applyAlloc(new MemoryState(), allocOf(pre)))}`);
  });
});
