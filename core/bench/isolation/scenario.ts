/**
 * The scenario of `bench:rpc-isolation`, the same on every peer: contracts installed with anvil_setCode (an endless
 * loop, a cheap view function, a log emitter), a few thousand logs on chain, then a victim measured without and with
 * four attackers that flood endless-loop eth_calls (gas 2^63 - 1: the peer's gas cap applies) and whole-chain
 * eth_getLogs from their own addresses.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Answer, post, spread, tally } from './client.ts';
import { scrapeSamples, windowFigures, type MainThreadFigures } from './nodeMetrics.ts';

/** JUMPDEST PUSH1 0 JUMP: runs until the gas or the time runs out. */
export const LOOP = '0x' + 'aa'.repeat(20);
const LOOP_CODE = '0x5b600056';
/** Returns the word 42: the cheap view function. */
export const VIEW = '0x' + 'bb'.repeat(20);
const VIEW_CODE = '0x602a60005260206000f3';
/** Emits calldata word n LOG1s of empty data (topic 1), then stops. */
const EMITTER = '0x' + 'dd'.repeat(20);
const EMITTER_CODE = '0x6000355b8015601757600160006000a1600190036003565b00';

const rpc = (method: string, params: unknown[] = [], id = 1) => ({ jsonrpc: '2.0', id, method, params });
export const BLOCK_NUMBER = rpc('eth_blockNumber');
export const CHEAP_CALL = rpc('eth_call', [{ to: VIEW }, 'latest']);
const ENDLESS_CALL = rpc('eth_call', [{ to: LOOP, gas: '0x7fffffffffffffff' }, 'latest']);
const WHOLE_CHAIN_LOGS = rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
const SETUP_ADDRESS = '127.0.0.1';

async function must(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  let a = await post(url, rpc(method, params), SETUP_ADDRESS);
  // A kept-alive connection the server closed meanwhile (an in-loop node stalls past its keep-alive): ask again.
  for (let i = 0; i < 3 && a.outcome === 'transport'; i++) a = await post(url, rpc(method, params), SETUP_ADDRESS);
  if (a.outcome !== 'ok') throw new Error(`${method} on ${url}: ${a.outcome}`);
  return a.result;
}

/** Installs the contracts and has the emitter log `txs` times `perTx` logs; returns the logs on chain. */
export async function prepare(url: string, txs: number, perTx: number): Promise<number> {
  await must(url, 'anvil_setCode', [LOOP, LOOP_CODE]);
  await must(url, 'anvil_setCode', [VIEW, VIEW_CODE]);
  await must(url, 'anvil_setCode', [EMITTER, EMITTER_CODE]);
  const [from] = (await must(url, 'eth_accounts')) as string[];
  const data = '0x' + perTx.toString(16).padStart(64, '0');
  const hashes: string[] = [];
  for (let i = 0; i < txs; i++) {
    hashes.push(
      (await must(url, 'eth_sendTransaction', [{ from, to: EMITTER, data, gas: '0x' + (perTx * 1_000 + 50_000).toString(16) }])) as string,
    );
  }
  for (const h of hashes) {
    let receipt: { status?: string; logs?: unknown[] } | null;
    for (let tries = 0; (receipt = (await must(url, 'eth_getTransactionReceipt', [h])) as typeof receipt) === null; tries++) {
      if (tries > 600) throw new Error(`transaction ${h} not mined on ${url}`);
      await sleep(100);
    }
    if (receipt.status !== '0x1' || receipt.logs?.length !== perTx) throw new Error(`transaction ${h} did not emit ${perTx} logs`);
  }
  // The pooled peers answer once a thread is up: wait for the first cheap call.
  for (let tries = 0; (await post(url, CHEAP_CALL, SETUP_ADDRESS)).outcome !== 'ok'; tries++) {
    if (tries > 600) throw new Error(`eth_call never answered on ${url}`);
    await sleep(100);
  }
  // Not counted with a whole-chain eth_getLogs: on the in-loop node that read alone can stall the loop long enough
  // for the watchdog to end the process.
  return txs * perTx;
}

export interface VictimFigures {
  /** eth_blockNumber every 20 ms, one after another, from 127.0.0.2. */
  blockNumber: ReturnType<typeof spread>;
  blockNumberOutcomes: Record<string, number>;
  /** The cheap eth_call every 100 ms, one after another, from 127.0.0.3 (its own loop: a slow call delays only it). */
  cheapCall: ReturnType<typeof spread>;
  cheapCallOutcomes: Record<string, number>;
}

/** The victim's two loops for `ms`. */
export async function victim(url: string, ms: number): Promise<VictimFigures> {
  const end = performance.now() + ms;
  const loop = async (body: unknown, from: string, gapMs: number): Promise<Answer[]> => {
    const out: Answer[] = [];
    while (performance.now() < end) {
      // A peer that does not answer in 30 s counts as a failure (outcome 'transport'), not a hung benchmark.
      out.push(await post(url, body, from, AbortSignal.timeout(30_000)));
      await sleep(gapMs);
    }
    return out;
  };
  const [heads, calls] = await Promise.all([loop(BLOCK_NUMBER, '127.0.0.2', 20), loop(CHEAP_CALL, '127.0.0.3', 100)]);
  const okMs = (a: Answer[]) => a.filter((x) => x.outcome === 'ok').map((x) => x.ms);
  return {
    blockNumber: spread(okMs(heads)),
    blockNumberOutcomes: tally(heads),
    cheapCall: spread(okMs(calls)),
    cheapCallOutcomes: tally(calls),
  };
}

export interface FloodFigures {
  /** The peer still answered after the flood (an in-loop node can be ended by its own watchdog). */
  alive: boolean;
  victim: VictimFigures;
  /** Blocks sealed during the victim's window, and the slots of that window (period `periodS`). */
  sealed: number;
  slots: number;
  /** What the attackers got back, per kind: outcome counts and the answered calls' time. */
  attackers: { endlessCall: Record<string, number>; wholeChainLogs: Record<string, number>; logsMs: ReturnType<typeof spread> };
  /** The node's main thread in the victim's window, from its /metrics (absent for a peer without them: anvil). */
  mainThread?: MainThreadFigures;
}

/**
 * `attackers` clients (127.0.0.10 and up), each keeping `callsInFlight` endless eth_calls and one whole-chain
 * eth_getLogs in flight, for `settleMs` and then the victim's `ms`. Attackers hang up when it ends.
 */
export async function flood(
  url: string,
  opts: { attackers: number; callsInFlight: number; settleMs: number; ms: number; periodS: number; logs?: boolean },
): Promise<FloodFigures> {
  const stop = new AbortController();
  setMaxListeners(100, stop.signal); // one listener per attacker request in flight
  const calls: Answer[] = [];
  const logs: Answer[] = [];
  const attack = async (body: unknown, from: string, into: Answer[]): Promise<void> => {
    while (!stop.signal.aborted) {
      const a = await post(url, body, from, stop.signal);
      if (!stop.signal.aborted) into.push(a);
      // A refused call (-32005, queue full) comes back at once: an attacker retries at once too, but not in a hot loop.
      if (a.outcome !== 'ok' && a.ms < 5) await sleep(5);
    }
  };
  const running: Promise<void>[] = [];
  for (let i = 0; i < opts.attackers; i++) {
    const from = `127.0.0.${10 + i}`;
    for (let j = 0; j < opts.callsInFlight; j++) running.push(attack(ENDLESS_CALL, from, calls));
    if (opts.logs !== false) running.push(attack(WHOLE_CHAIN_LOGS, from, logs));
  }
  await sleep(opts.settleMs);
  // An in-loop node may not answer at all now (stalled, or ended by its own watchdog): that is a figure, not a failure.
  const first = await post(url, BLOCK_NUMBER, SETUP_ADDRESS, AbortSignal.timeout(30_000));
  const before = first.outcome === 'ok' ? Number(BigInt(first.result as string)) : NaN;
  const metricsBefore = await scrapeSamples(url);
  const t0 = performance.now();
  const v = await victim(url, opts.ms);
  const elapsedS = (performance.now() - t0) / 1000;
  const metricsAfter = metricsBefore && (await scrapeSamples(url));
  const after = await post(url, BLOCK_NUMBER, SETUP_ADDRESS, AbortSignal.timeout(30_000));
  const sealed = after.outcome === 'ok' && first.outcome === 'ok' ? Number(BigInt(after.result as string)) - before : 0;
  stop.abort();
  await Promise.all(running);
  return {
    alive: after.outcome === 'ok',
    victim: v,
    sealed,
    slots: Math.floor(elapsedS / opts.periodS),
    attackers: {
      endlessCall: tally(calls),
      wholeChainLogs: tally(logs),
      logsMs: spread(logs.filter((a) => a.outcome === 'ok').map((a) => a.ms)),
    },
    ...(metricsBefore && metricsAfter ? { mainThread: windowFigures(metricsBefore, metricsAfter) } : {}),
  };
}

/** Cheap eth_calls answered per second with `clients` addresses x `perClient` sequential loops for `ms`. */
export async function cheapCallThroughput(
  url: string,
  clients: number,
  perClient: number,
  ms: number,
): Promise<{ perSec: number; outcomes: Record<string, number>; latency: ReturnType<typeof spread> }> {
  const end = performance.now() + ms;
  const answers: Answer[] = [];
  const loop = async (from: string): Promise<void> => {
    // A peer still busy with the attackers' work (anvil computes a 2^63-gas loop to its end) may not answer at all.
    while (performance.now() < end) answers.push(await post(url, CHEAP_CALL, from, AbortSignal.timeout(10_000)));
  };
  const loops: Promise<void>[] = [];
  for (let c = 0; c < clients; c++) for (let j = 0; j < perClient; j++) loops.push(loop(`127.0.0.${30 + c}`));
  await Promise.all(loops);
  const ok = answers.filter((a) => a.outcome === 'ok' && String(a.result).endsWith('2a'));
  return { perSec: Math.round((ok.length * 1000) / ms), outcomes: tally(answers), latency: spread(ok.map((a) => a.ms)) };
}
