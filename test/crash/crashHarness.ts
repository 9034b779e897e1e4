/**
 * The kill loop of the crash tests. A writer child (see writer.ts) writes blocks; after a random number of durable
 * heads (0 to 3) and a random extra delay the parent SIGKILLs it, then reopens the datadir itself and checks:
 * every head reported durable is there and intact (byte for byte against the regenerated chain), nothing past the
 * last durable point is visible (no partial batch), and every few rounds the full `checkStore` walk is clean.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { expect } from 'vitest';
import { syntheticBlock, ZERO_HASH } from '../../core/bench/store/syntheticBlocks.ts';
import { ChainStore, checkStore, type BlockRecord } from '../../core/store/index.ts';
import { CRASH_SHAPE } from './shape.ts';

/** One crash scenario. */
export interface CrashPlan {
  bundle: string;
  datadir: string;
  kills: number;
  seed: number;
  /** 1 = producer (batch 0); otherwise follower with batch = step. */
  step: number;
  /** Run the full checkStore walk every this many rounds (and after the last). */
  checkEvery: number;
  /** The writer's `StoreOptions.commitSurvives` (default 'power-loss'); the parent always reopens with the default. */
  commitSurvives?: 'power-loss' | 'process-exit';
}

/** What a run did. */
export interface CrashResult {
  kills: number;
  finalHead: number;
  blocksVerified: number;
  killedBeforeFirstDurable: number;
  aheadOfReport: number;
}

/** Writers waiting, loaded, for their turn. */
const POOL_DEPTH = 3;

interface Writer {
  proc: ChildProcess;
  lines: AsyncIterator<string>;
}

function startWriter(plan: CrashPlan): Writer {
  const args = [
    '--datadir',
    plan.datadir,
    '--seed',
    String(plan.seed),
    '--step',
    String(plan.step),
    '--batch',
    String(plan.step === 1 ? 0 : plan.step),
    '--commit-survives',
    plan.commitSurvives ?? 'power-loss',
  ];
  const proc = spawn(process.execPath, [plan.bundle, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  return { proc, lines };
}

async function nextLine(w: Writer): Promise<string | undefined> {
  const r = await w.lines.next();
  return r.done ? undefined : r.value;
}

const exited = (p: ChildProcess) =>
  new Promise<void>((resolve) => (p.exitCode !== null || p.signalCode !== null ? resolve() : p.once('exit', () => resolve())));

/** Runs `plan.kills` kill rounds; throws (via expect) on the first violation. */
export async function runCrashLoop(plan: CrashPlan): Promise<CrashResult> {
  let rnd = plan.seed * 7919 + 1;
  const random = (n: number) => ((rnd = (rnd * 1103515245 + 12345) & 0x7fffffff), (rnd >>> 16) % n);
  const chain: BlockRecord[] = [];
  const blockAt = (n: number): BlockRecord => {
    while (chain.length <= n)
      chain.push(syntheticBlock(plan.seed, chain.length, chain.length === 0 ? ZERO_HASH : chain[chain.length - 1].hash, CRASH_SHAPE));
    return chain[n];
  };
  const result: CrashResult = { kills: 0, finalHead: -1, blocksVerified: 0, killedBeforeFirstDurable: 0, aheadOfReport: 0 };
  let reported = -1;
  let verified = -1;
  // Writers start ahead of need (process start-up is most of a round's cost on a loaded box).
  const pool = Array.from({ length: Math.min(POOL_DEPTH, plan.kills) }, () => startWriter(plan));
  try {
    for (let round = 0; round < plan.kills; round++) {
      const w = pool.shift() as Writer;
      const t0 = performance.now();
      expect(await nextLine(w)).toBe('ready');
      const t1 = performance.now();
      w.proc.stdin!.write('go\n');
      if (round + pool.length + 1 < plan.kills) pool.push(startWriter(plan));
      const wantDurable = random(4);
      let seen = 0;
      while (seen < wantDurable) {
        const line = await nextLine(w);
        if (line === undefined) throw new Error(`writer exited early in round ${round}`);
        const m = /^durable (\d+)$/.exec(line);
        if (m) {
          const n = Number(m[1]);
          expect(n).toBeGreaterThan(reported);
          reported = n;
          seen++;
        }
      }
      if (wantDurable === 0) result.killedBeforeFirstDurable++;
      const delay = random(3);
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      const t2 = performance.now();
      w.proc.kill('SIGKILL');
      await exited(w.proc);
      result.kills++;
      // The writer kept going until the signal landed: take every head it reported, to the last line it wrote.
      for (let line = await nextLine(w); line !== undefined; line = await nextLine(w)) {
        const m = /^durable (\d+)$/.exec(line);
        if (m) reported = Math.max(reported, Number(m[1]));
      }
      const t3 = performance.now();

      const store = ChainStore.open({ datadir: plan.datadir });
      try {
        const head = store.getHead()?.number ?? -1;
        // Every reported head is there; at most one more commit got in before the kill, never part of a batch.
        expect(head).toBeGreaterThanOrEqual(reported);
        expect(head).toBeLessThanOrEqual(reported + plan.step);
        expect((head + 1) % plan.step, `head ${head} is not a batch boundary`).toBe(0);
        if (head > reported) result.aheadOfReport++;
        reported = head;
        for (let n = Math.max(0, verified + 1); n <= head; n++) {
          const b = blockAt(n);
          expect(Buffer.from(store.getCanonicalHash(n) ?? []).equals(b.hash), `canonical hash of ${n}`).toBe(true);
          expect(Buffer.from(store.getHeaderByHash(b.hash)?.headerRlp ?? []).equals(b.headerRlp)).toBe(true);
          expect(Buffer.from(store.getBody(b.hash) ?? []).equals(b.bodyRlp), `body of ${n}`).toBe(true);
          expect(Buffer.from(store.getReceipts(b.hash) ?? []).equals(b.receiptsRlp), `receipts of ${n}`).toBe(true);
          expect(store.getTxLocation(b.txHashes[1])?.blockNumber).toBe(n);
          result.blocksVerified++;
        }
        verified = head;
        const past = blockAt(head + 1);
        expect(store.getCanonicalHash(head + 1)).toBeUndefined();
        expect(store.getHeaderByHash(past.hash)).toBeUndefined();
        expect(store.getTxLocation(past.txHashes[0])).toBeUndefined();
        result.finalHead = head;
      } finally {
        store.close();
      }
      if (process.env.XONE_CRASH_DEBUG)
        console.log(
          round,
          wantDurable,
          (t1 - t0).toFixed(0),
          (t2 - t1).toFixed(0),
          (t3 - t2).toFixed(0),
          (performance.now() - t3).toFixed(0),
        );
      if ((round + 1) % plan.checkEvery === 0 || round === plan.kills - 1) {
        const report = checkStore(plan.datadir);
        expect(report.problems).toEqual([]);
        expect(report).toMatchObject({ ok: true, segments: { uncommittedTailBytes: 0, strayFiles: 0 } });
      }
    }
  } finally {
    for (const idle of pool) {
      idle.proc.kill('SIGKILL');
      await exited(idle.proc);
    }
  }
  return result;
}

/** Kills per crash test file: XONE_CRASH_KILLS (the soak script raises it) split over the two modes; default 100 each. */
export function killsPerMode(): number {
  const total = Number(process.env.XONE_CRASH_KILLS ?? 200);
  return Math.max(1, Math.ceil(total / 2));
}
