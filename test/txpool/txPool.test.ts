/** The transaction pool with real signed transactions: geth's validation messages, pending/queued, replacement, selection. */
import { describe, expect, it } from 'vitest';
import { signTransaction, type Transaction, type UnsignedTransaction } from '../../core/chain/transaction/index.ts';
import { testingAddress, testingPrivateKey } from '../../core/chain/transaction/testing.ts';
import { bytesToHex } from '../../core/primitives/hex.ts';
import { TxPool, TxPoolError, type PoolStateReader } from '../../core/txpool/index.ts';

const CHAIN_ID = 1337n;
const GWEI = 1_000_000_000n;
const to = new Uint8Array(20).fill(7);

class State implements PoolStateReader {
  nonces = new Map<string, bigint>();
  balances = new Map<string, bigint>();
  nonce(a: Uint8Array): bigint {
    return this.nonces.get(bytesToHex(a)) ?? 0n;
  }
  balance(a: Uint8Array): bigint {
    return this.balances.get(bytesToHex(a)) ?? 0n;
  }
}

function tx(
  sender: number,
  nonce: bigint,
  fee: { max?: bigint; tip?: bigint } = {},
  extra: Partial<UnsignedTransaction> = {},
): Transaction {
  return signTransaction(
    {
      type: 2,
      chainId: CHAIN_ID,
      nonce,
      maxFeePerGas: fee.max ?? 10n * GWEI,
      maxPriorityFeePerGas: fee.tip ?? GWEI,
      gasLimit: 21_000n,
      to,
      value: 1n,
      data: new Uint8Array(0),
      ...extra,
    },
    testingPrivateKey(sender),
  );
}

function setup(options = {}) {
  const state = new State();
  for (let i = 0; i < 4; i++) state.balances.set(bytesToHex(testingAddress(i)), 10n ** 21n);
  const pool = new TxPool(options, {
    state: () => state,
    context: () => ({ fork: 'London', chainId: CHAIN_ID, baseFee: GWEI, blockGasLimit: 30_000_000n }),
  });
  return { pool, state };
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
}

describe('TxPool', () => {
  it('default: consecutive nonces are pending, a gap is queued until filled', () => {
    const { pool } = setup();
    const announced: string[] = [];
    pool.on('pending', (p) => announced.push(bytesToHex(p.tx.hash)));
    expect(pool.add(tx(0, 0n)).status).toBe('pending');
    expect(pool.add(tx(0, 2n)).status).toBe('queued');
    expect(pool.status()).toEqual({ pending: 1, queued: 1 });
    expect(pool.add(tx(0, 1n)).status).toBe('pending');
    expect(pool.status()).toEqual({ pending: 3, queued: 0 });
    expect(announced).toHaveLength(3);
    expect(pool.pendingNonce(testingAddress(0), 0n)).toBe(3n);
  });

  it("error: geth's messages for known, stale, unfunded and underpriced replacement", () => {
    const { pool, state } = setup();
    const first = tx(0, 0n);
    pool.add(first);
    expect(refusal(() => pool.add(first))).toBe('already known');
    expect(refusal(() => pool.add(tx(0, 0n, { max: 10n * GWEI + 1n, tip: GWEI + 1n })))).toBe('replacement transaction underpriced');
    state.nonces.set(bytesToHex(testingAddress(1)), 5n);
    expect(refusal(() => pool.add(tx(1, 4n)))).toMatch(/^nonce too low/);
    expect(refusal(() => pool.add(tx(9, 0n)))).toMatch(/^insufficient funds for gas \* price \+ value/);
    expect(refusal(() => pool.add(tx(2, 0n, { max: GWEI, tip: 2n * GWEI })))).toMatch(
      /^max priority fee per gas higher than max fee per gas/,
    );
    expect(refusal(() => pool.add(tx(2, 0n, {}, { gasLimit: 20_000n })))).toMatch(/^intrinsic gas too low/);
    expect(refusal(() => pool.add(tx(2, 0n, {}, { gasLimit: 40_000_000n })))).toBe('exceeds block gas limit');
  });

  it('error: a refused transaction leaves no empty account behind for the next head to trip over', () => {
    const { pool, state } = setup();
    state.nonces.set(bytesToHex(testingAddress(1)), 5n);
    expect(refusal(() => pool.add(tx(1, 4n)))).toMatch(/^nonce too low/);
    expect(refusal(() => pool.add(tx(9, 0n)))).toMatch(/^insufficient funds/);
    expect(pool.content().size).toBe(0);
    state.nonces.set(bytesToHex(testingAddress(1)), 6n);
    expect(() => pool.onNewHead()).not.toThrow();
    expect(pool.pendingNonce(testingAddress(1), 6n)).toBe(6n);
  });

  it('behavior: a 10% bump on both caps replaces the transaction', () => {
    const { pool } = setup();
    const first = tx(0, 0n);
    pool.add(first);
    const bumped = tx(0, 0n, { max: 11n * GWEI, tip: (GWEI * 11n) / 10n });
    expect(pool.add(bumped).replaced).toEqual(first.hash);
    expect(pool.get(first.hash)).toBeUndefined();
    expect(pool.status()).toEqual({ pending: 1, queued: 0 });
  });

  it('behavior: selection orders by effective tip, nonces in order, skipping fee caps below the base fee', () => {
    const { pool } = setup();
    pool.add(tx(0, 0n, { tip: 1n * GWEI }));
    pool.add(tx(0, 1n, { tip: 5n * GWEI }));
    pool.add(tx(1, 0n, { tip: 3n * GWEI }));
    pool.add(tx(2, 0n, { max: GWEI - 1n, tip: 1n }));
    const picked = pool.selectForBlock(GWEI, 30_000_000n).map((p) => [p.senderHex, p.tx.nonce]);
    expect(picked).toEqual([
      [bytesToHex(testingAddress(1)), 0n],
      [bytesToHex(testingAddress(0)), 0n],
      [bytesToHex(testingAddress(0)), 1n],
    ]);
    expect(pool.selectForBlock(GWEI, 42_000n)).toHaveLength(2);
  });

  it('behavior: a new head drops included transactions and promotes the rest', () => {
    const { pool, state } = setup();
    for (let n = 0n; n < 3n; n++) pool.add(tx(0, n));
    pool.add(tx(0, 4n));
    state.nonces.set(bytesToHex(testingAddress(0)), 2n);
    const announced: bigint[] = [];
    pool.on('pending', (p) => announced.push(p.tx.nonce));
    pool.onNewHead();
    expect(pool.status()).toEqual({ pending: 1, queued: 1 });
    expect(announced).toEqual([]);
    pool.add(tx(0, 3n));
    expect(pool.status()).toEqual({ pending: 3, queued: 0 });
    expect(announced).toEqual([3n, 4n]);
  });

  it('error: limits per account queue and global slots', () => {
    const { pool } = setup({ accountQueue: 2, globalSlots: 3 });
    pool.add(tx(0, 5n));
    pool.add(tx(0, 6n));
    expect(refusal(() => pool.add(tx(0, 7n)))).toMatch(/account limit exceeded/);
    for (let n = 0n; n < 3n; n++) pool.add(tx(1, n));
    const err = (() => {
      try {
        pool.add(tx(2, 0n));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(TxPoolError);
    expect((err as TxPoolError).message).toBe('txpool is full');
  });

  it('behavior: admission reads the head state once per head (one reader, one read per sender), and again after a new head', () => {
    const state = new State();
    for (let i = 0; i < 2; i++) state.balances.set(bytesToHex(testingAddress(i)), 10n ** 21n);
    let opened = 0;
    const reads: string[] = [];
    const pool = new TxPool(
      {},
      {
        state: () => {
          opened++;
          return { nonce: (a) => (reads.push('nonce'), state.nonce(a)), balance: (a) => (reads.push('balance'), state.balance(a)) };
        },
        context: () => ({ fork: 'London', chainId: CHAIN_ID, baseFee: GWEI, blockGasLimit: 30_000_000n }),
      },
    );
    for (let n = 0n; n < 5n; n++) pool.add(tx(0, n));
    pool.add(tx(1, 0n));
    expect(opened).toBe(1);
    expect(reads).toEqual(['nonce', 'balance', 'nonce', 'balance']);
    // The head moves: account 0's first three were mined and its balance dropped below the next transaction's cost.
    state.nonces.set(bytesToHex(testingAddress(0)), 3n);
    state.balances.set(bytesToHex(testingAddress(0)), 1n);
    pool.onNewHead();
    expect(refusal(() => pool.add(tx(0, 5n)))).toMatch(/^insufficient funds/);
    expect(pool.status()).toEqual({ pending: 3, queued: 0 });
  });

  it('behavior: a new head drops only the mined nonces of fully executable accounts and announces nothing again', () => {
    const { pool, state } = setup();
    const sent = [0, 1, 2].map((a) => Array.from({ length: 10 }, (_, n) => tx(a, BigInt(n))));
    for (const run of sent) for (const t of run) pool.add(t);
    let announced = 0;
    pool.on('pending', () => announced++);
    state.nonces.set(bytesToHex(testingAddress(0)), 4n);
    state.nonces.set(bytesToHex(testingAddress(1)), 10n);
    pool.onNewHead();
    expect(announced).toBe(0);
    expect(pool.status()).toEqual({ pending: 16, queued: 0 });
    expect(pool.get(sent[0][3].hash)).toBeUndefined();
    expect(pool.get(sent[0][4].hash)).toBeDefined();
    expect(pool.pendingNonce(testingAddress(0), 4n)).toBe(10n);
    expect([...pool.content().keys()]).toEqual([bytesToHex(testingAddress(0)), bytesToHex(testingAddress(2))]);
    expect(pool.selectForBlock(GWEI, 30_000_000n)).toHaveLength(16);
    // A later transaction extends the run as before.
    pool.add(tx(0, 10n));
    expect(announced).toBe(1);
    expect(pool.status()).toEqual({ pending: 17, queued: 0 });
  });
});
