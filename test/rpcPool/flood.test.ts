/**
 * A real flood against a real node (`xone run --dev` as a child process) on the documented maximum flags
 * (`--rpc.gascap 100000000000 --rpc.evmtimeout 30000`): four attackers keep endless-loop eth_calls in flight, another
 * client measures eth_blockNumber and a cheap eth_call meanwhile. The node must stay alive, keep sealing its slots,
 * answer the victim about as fast as without the flood (compared with a baseline taken in the same run, with generous
 * margins for a loaded host), refuse the excess at once with -32005 + Retry-After, and stop the attackers' work when
 * they hang up. Before the pool, one such call held the loop until the watchdog killed the node at 10 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { percentiles, rawPost } from '../support/rawPost.ts';
import { rpc, scrape } from '../node/support/rpcCall.ts';

const LOOP = '0x' + 'aa'.repeat(20);
const VIEW = '0x' + 'bb'.repeat(20);
let node: DevNode;
const blockNumber = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };
const cheapCall = { jsonrpc: '2.0', id: 2, method: 'eth_call', params: [{ to: VIEW }, 'latest'] };
const endless = { jsonrpc: '2.0', id: 3, method: 'eth_call', params: [{ to: LOOP, gas: '0x7fffffffffffffff' }, 'latest'] };
const wholeChainLogs = { jsonrpc: '2.0', id: 4, method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: 'latest' }] };

beforeAll(async () => {
  node = await startDevNode(['--period', '1', '--rpc.gascap', '100000000000', '--rpc.evmtimeout', '30000']);
  await rpc(node.url, 'anvil_setCode', [LOOP, '0x5b600056']);
  await rpc(node.url, 'anvil_setCode', [VIEW, '0x602a60005260206000f3']);
  // The pool's threads start once the node listens: wait until a cheap call is answered by one.
  const until = Date.now() + 60_000;
  while (Date.now() < until && !((await rawPost(node.url, cheapCall)).json as { result?: string }).result?.endsWith('2a')) {
    await new Promise((r) => setTimeout(r, 100));
  }
}, 90_000);
afterAll(async () => {
  await node?.stop();
});

/**
 * The victim, from its own addresses, for `ms`: eth_blockNumber every 20 ms and, in a loop of its own (a slow call
 * must not hold the head samples), a cheap eth_call every 100 ms. The watchdog's shedding (-32005, the loop was late
 * on a loaded host) is the documented answer, not an error of the pool.
 */
async function victim(ms: number): Promise<{ head: number[]; call: number[]; callErrors: unknown[]; shed: number }> {
  const head: number[] = [];
  const call: number[] = [];
  const callErrors: unknown[] = [];
  let shed = 0;
  const end = Date.now() + ms;
  const heads = async () => {
    while (Date.now() < end) {
      head.push((await rawPost(node.url, blockNumber, { localAddress: '127.0.0.2' })).ms);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const calls = async () => {
    while (Date.now() < end) {
      const r = await rawPost(node.url, cheapCall, { localAddress: '127.0.0.3' });
      const json = r.json as { result?: string; error?: { code: number; message: string } };
      if (json.result?.endsWith('2a')) call.push(r.ms);
      else if (json.error?.code === -32005 && json.error.message.includes('shedding')) shed++;
      else callErrors.push(r.json);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  await Promise.all([heads(), calls()]);
  return { head, call, callErrors, shed };
}

/**
 * Until every pool thread is up: eight endless calls from eight addresses at once (one running call per client; each
 * hung up after 1.5 s) make the pool start all eight, and the pool's own gauge says when they are ready. Cheap calls
 * would not: a cheap call ends within its first 20 ms, and at most as many of those run at once as there are cores
 * (decision 0030), on the threads already up. Answers alone do not say it either: the first ready
 * threads answer all eight while the rest are still loading, and on a loaded host (load 15-30) a thread loads for
 * seconds, so the victim's first call under attack waited 8-19 s for one (CI of a1580c0). A newcomer waiting for a
 * thread to load is the documented cost of on-demand threads (decision 0030); this test measures the steady state.
 */
async function poolWarm(): Promise<void> {
  const until = Date.now() + 90_000;
  while (Date.now() < until) {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        rawPost(node.url, endless, { localAddress: `127.0.0.${40 + i}`, signal: AbortSignal.timeout(1_500) }).catch(() => undefined),
      ),
    );
    if (((await scrape(node.url)).get('xone_rpc_pool_ready_workers') ?? 0) >= 8) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the pool did not start its eight threads within 90 s');
}

const head = async (): Promise<number> => Number(BigInt((await rpc(node.url, 'eth_blockNumber')).result as string));

describe('flood against a real node', () => {
  it('behavior: endless eth_calls on the maximum flags stall neither the loop nor the chain; excess is refused at once; hang-ups stop the work', async () => {
    await poolWarm();
    // Baseline, same run, same host load.
    const quiet = await victim(3_000);
    const base = { head: percentiles(quiet.head), call: percentiles(quiet.call) };

    const attackers = new AbortController();
    let attacks = 0;
    // Four attackers (four addresses), each keeping three endless calls in flight: one runs (its share), two wait;
    // a fifth floods whole-chain eth_getLogs.
    const attacker = async (i: number, body: unknown = endless) => {
      while (!attackers.signal.aborted) {
        attacks++;
        await rawPost(node.url, body, { signal: attackers.signal, localAddress: `127.0.0.${10 + i}` }).catch(() => undefined);
      }
    };
    const running = [
      ...Array.from({ length: 4 }, (_, i) => Array.from({ length: 3 }, () => attacker(i))).flat(),
      ...Array.from({ length: 3 }, () => attacker(4, wholeChainLogs)),
    ];
    await new Promise((r) => setTimeout(r, 1_000));
    const before = await head();
    const t0 = Date.now();
    const loaded = await victim(8_000);
    const slots = Math.floor((Date.now() - t0) / 1000);
    const sealed = (await head()) - before;
    const metrics = await scrape(node.url);
    // One attacker bursts past its 16 queue places: the excess is refused at once, with HTTP 429 and a Retry-After.
    const burst = await Promise.all(
      Array.from({ length: 24 }, () =>
        rawPost(node.url, endless, { localAddress: '127.0.0.10', signal: AbortSignal.timeout(1_000) }).catch(() => undefined),
      ),
    );
    const refusals = burst.filter((r) => r && (r.json as { error?: { code: number } }).error?.code === -32005);
    // On a busy host the watchdog may be shedding load when the burst comes: that refusal is -32005 too, at once, but
    // HTTP 200 without Retry-After (docs/errors.md); the pool's own refusals are 429 + Retry-After.
    const isShed = (r: (typeof burst)[number]) =>
      (r?.json as { error?: { message?: string } }).error?.message?.includes('shedding') === true;
    const poolRefusals = refusals.filter((r) => !isShed(r));
    attackers.abort();
    await Promise.all(running);

    const under = { head: percentiles(loaded.head), call: percentiles(loaded.call) };
    console.log(
      JSON.stringify({
        base,
        under,
        sealed,
        slots,
        attacks,
        refusals: refusals.length,
        shed: refusals.length - poolRefusals.length,
        busy: metrics.get('xone_rpc_pool_busy_workers'),
        loopLagMs: metrics.get('xone_loop_lag_ms'),
      }),
    );
    if (under.call.n <= 5) console.log(node.output().slice(-3000));

    // The node survived a 2^63-gas endless loop with a 30 s budget (the watchdog would have killed it at 10 s).
    expect(node.child.exitCode).toBeNull();
    // Each attacker held its share (one thread) the whole time.
    expect(metrics.get('xone_rpc_pool_busy_workers')).toBeGreaterThanOrEqual(4);
    // The chain kept sealing: at least 60 % of the 1 s slots (the bench holds the strict 95 % target).
    expect(sealed).toBeGreaterThanOrEqual(Math.floor(slots * 0.6));
    // The loop stayed responsive: the victim's eth_blockNumber was never held for an EVM run (30 s here).
    expect(under.head.p50).toBeLessThan(Math.max(50, base.head.p50 * 5));
    expect(under.head.max).toBeLessThan(2_000);
    // The victim's cheap calls were answered, not starved behind the attackers' endless ones (30 s each).
    expect(loaded.callErrors.filter((e) => !JSON.stringify(e).includes('shedding'))).toEqual([]);
    expect(under.call.n).toBeGreaterThan(5);
    expect(under.call.max).toBeLessThan(15_000);
    // The excess was refused at once (within the 1 s the burst waited) with -32005, HTTP 429 and a Retry-After.
    expect(refusals.length).toBeGreaterThanOrEqual(5);
    for (const r of poolRefusals) {
      expect(r?.status).toBe(429);
      expect(Number(r?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    for (const r of refusals.filter(isShed)) expect(r?.status).toBe(200);

    // The attackers hung up: their running and queued work stops well before the 30 s budget.
    const stopBy = Date.now() + 10_000;
    let busy = 4;
    while (Date.now() < stopBy && busy > 0) {
      await new Promise((r) => setTimeout(r, 200));
      busy = (await scrape(node.url)).get('xone_rpc_pool_busy_workers') ?? -1;
    }
    expect(busy).toBe(0);
    expect(percentiles((await victim(500)).head).max).toBeLessThan(2_000);
  }, 120_000);
});
