/**
 * A full disk under a running `xone run --dev --period 1` (a real child process; the one injected fault is
 * XONE_TEST_DISK_FULL_FILE: while its flag file exists the chain thread's segment writes fail with ENOSPC, as a full
 * disk's would). Issue #14: one error line per distinct failure, not one stack per retry; the tx pool stops admitting
 * while production is stuck, saying why; reads keep answering; once space returns, production resumes, says so once,
 * and transactions are taken and mined again. The unit side (backoff, fake clock) is test/node/producerFailures.test.ts.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devAccounts } from '../../core/node/dev/devChain.ts';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { sendDevTransfer } from './support/devTransfer.ts';
import { rpc } from './support/rpcCall.ts';

let node: DevNode;
let flag: string;
beforeAll(async () => {
  // Beside the datadirs of the e2e tests (startDevNode's .xone/test-e2e), under a name of its own.
  flag = join(import.meta.dirname, '..', '..', '.xone', `disk-full-${process.pid}-${Date.now()}`);
  node = await startDevNode(['--period', '1'], 60_000, { XONE_TEST_DISK_FULL_FILE: flag });
});
afterAll(async () => {
  rmSync(flag, { force: true });
  await node?.stop();
});

const head = async (): Promise<number> => Number((await rpc(node.url, 'eth_blockNumber')).result);

/** Polls `probe` every 200 ms until it returns a value (no wall-clock bound beyond the test's own timeout). */
async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    await sleep(200);
  }
}

const lines = (pattern: RegExp): string[] =>
  node
    .output()
    .split('\n')
    .filter((l) => pattern.test(l));

describe('disk full under a running node', () => {
  it('error: production stuck on ENOSPC logs one line, refuses transactions with the reason, and recovers once space returns', async () => {
    const from = devAccounts(1)[0].address;
    await until(async () => ((await head()) >= 1 ? true : undefined));

    writeFileSync(flag, '');
    // Stuck after two failed seals in a row (0.5 s apart): the pool refuses from then on, saying why.
    const refusal = await until(async () => {
      const nonce = Number((await rpc(node.url, 'eth_getTransactionCount', [from, 'pending'])).result);
      const r = await sendDevTransfer(node.url, nonce);
      return r.error?.message.includes('block production is stuck') ? r.error : undefined;
    });
    expect(refusal.code).toBe(-32000);
    expect(refusal.message).toMatch(/^block production is stuck \(.*disk full \(ENOSPC\).*\): not accepting transactions$/);
    const stuckAt = await head();

    // Let the producer retry a few more times (backoff 0.5, 1, 2 s ...): the head stays, reads still answer.
    await sleep(3_500);
    expect(await head()).toBe(stuckAt);
    expect((await rpc(node.url, 'eth_getBalance', [from, 'latest'])).result).toMatch(/^0x[0-9a-f]+$/);
    // One error line for the one distinct failure, however many retries; no stack trace anywhere.
    const failed = lines(/block production failed/);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(/STORE_DISK_FULL/);
    expect(failed[0]).toMatch(/ENOSPC/);
    expect(node.output()).not.toMatch(/^\s+at /m);

    // Space returns: the next retry seals (within the backoff reached so far), one line says so, transfers are mined.
    rmSync(flag);
    await until(async () => ((await head()) > stuckAt ? true : undefined));
    await until(async () => (lines(/block production recovered/).length > 0 ? true : undefined));
    const nonce = Number((await rpc(node.url, 'eth_getTransactionCount', [from, 'pending'])).result);
    const sent = await sendDevTransfer(node.url, nonce);
    expect(sent.error).toBeUndefined();
    const receipt = await until(async () => {
      const r = (await rpc(node.url, 'eth_getTransactionReceipt', [sent.result])).result as { status: string } | null;
      return r ?? undefined;
    });
    expect(receipt.status).toBe('0x1');
    expect(lines(/block production recovered/)).toHaveLength(1);
    expect(lines(/block production failed/)).toHaveLength(1);
  }, 90_000);
});
