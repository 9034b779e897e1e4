/**
 * Block production that keeps failing (a full disk: every seal fails at once with STORE_DISK_FULL) must not spin:
 * interval mining retries with a growing wait, logs one error line per distinct failure (not one stack per attempt),
 * says once when it recovers, and reports itself stuck meanwhile so the tx pool refuses new transactions, saying why.
 * The clock is faked: time is the point.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { XoneError } from '../../core/errors.ts';
import type { Logger } from '../../core/log/types.ts';
import { Producer } from '../../core/node/producer.ts';
import type { TxPool } from '../../core/txpool/index.ts';
import type { Transaction } from '../../core/chain/transaction/index.ts';
import { AUTOMINE_ANSWER_WAIT_MS, NodeTxPoolView } from '../../core/rpcBackend/txPoolView.ts';

function recordingLogger(): { logger: Logger; lines: { level: string; msg: string; fields: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      lines.push({ level, msg, fields });
  const logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as unknown as Logger;
  return { logger, lines };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('producer failures', () => {
  it('error: a seal that fails every time is retried with backoff, logged once, and marks production stuck until one succeeds', async () => {
    const { logger, lines } = recordingLogger();
    let failing = true;
    let attempts = 0;
    const producer = new Producer('interval', {
      produce: async () => {
        attempts++;
        if (failing) throw new XoneError('STORE_DISK_FULL', 'commit: disk full (SQLITE_FULL); nothing was committed');
      },
      // The slot is always now: what a node whose seals fail sees (the parent's slot has passed).
      plan: async () => ({ delayMs: 0, parentHash: new Uint8Array(32) }),
      logger,
    });
    producer.start();
    await vi.advanceTimersByTimeAsync(60_000);
    // Before: thousands of attempts a second, each with an error line and a stack. Now 0.5 s, 1 s, 2 s, ... 30 s.
    expect(attempts).toBeGreaterThanOrEqual(5);
    expect(attempts).toBeLessThanOrEqual(10);
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      msg: 'block production failed',
      fields: { err: 'commit: disk full (SQLITE_FULL); nothing was committed', code: 'STORE_DISK_FULL' },
    });
    expect(errors[0].fields.stack).toBeUndefined();
    expect(producer.stuck()).toBe('commit: disk full (SQLITE_FULL); nothing was committed');

    // The disk has room again: the next retry seals, one line says so, and the pool admits again.
    failing = false;
    await vi.advanceTimersByTimeAsync(31_000);
    expect(producer.stuck()).toBeUndefined();
    expect(lines.filter((l) => l.msg === 'block production recovered')).toHaveLength(1);
    const after = attempts;
    await vi.advanceTimersByTimeAsync(1_000);
    // Back to the slot's own pace (plan() says 0 ms here: at least one more seal, not a backoff's wait).
    expect(attempts).toBeGreaterThan(after);
    await producer.close();
  });

  it('error: while production is stuck the tx pool refuses new transactions with the reason', async () => {
    // The refusal comes before the pool is asked anything.
    const view = new NodeTxPoolView(
      {} as TxPool,
      () => 0n,
      () => 'commit: disk full (SQLITE_FULL); nothing was committed',
    );
    const refusal = await view.sendRawTransaction(new Uint8Array([0x02])).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(XoneError);
    expect(refusal).toMatchObject({
      code: 'TXPOOL_REJECTED',
      message: 'block production is stuck (commit: disk full (SQLITE_FULL); nothing was committed): not accepting transactions',
    });
  });
  it('behavior: an automine send answers when its block is served, however slow the seal (a loaded host took > 2 s)', async () => {
    let sealed = false;
    const seal = new Promise<void>((resolve) => setTimeout(() => ((sealed = true), resolve()), 5_000));
    const hash = new Uint8Array(32).fill(7);
    const view = new NodeTxPoolView(
      { add: () => ({ hash }) } as unknown as TxPool,
      () => 0n,
      () => undefined,
      () => seal,
    );
    let answered = false;
    const answer = view.submit({} as Transaction, new Uint8Array(20)).then((h) => ((answered = true), h));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(answered).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await answer).toBe(hash);
    expect(sealed).toBe(true);
  });

  it('behavior: a seal that never settles holds the automine answer no longer than the cap', async () => {
    const hash = new Uint8Array(32).fill(8);
    const view = new NodeTxPoolView(
      { add: () => ({ hash }) } as unknown as TxPool,
      () => 0n,
      () => undefined,
      () => new Promise<void>(() => {}),
    );
    let answered = false;
    const answer = view.submit({} as Transaction, new Uint8Array(20)).then((h) => ((answered = true), h));
    await vi.advanceTimersByTimeAsync(AUTOMINE_ANSWER_WAIT_MS - 1);
    expect(answered).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await answer).toBe(hash);
  });
});
