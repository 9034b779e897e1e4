/**
 * Summarises V8 .cpuprofile files (`node --cpu-prof`, one per thread; bench:follow `--cpu-prof DIR`) as JSON, so the
 * profiles behind BENCHMARKS.md's tables can be re-read by anyone (issue #18). Per profile: its busy time (samples
 * that are not `(idle)`), the top-N functions by self time as a share of that busy time, and the thread's role
 * guessed from what it runs (the chain thread executes blocks, a recovery worker recovers signatures...).
 *
 *   node bin/run-ts.mjs core/bench/profileSummary.ts DIR|FILE... [--top N] [--window FROM_US,TO_US]
 *
 * `--window` keeps only samples whose monotonic timestamp (µs, the clock of the profile's `startTime`, which is
 * CLOCK_MONOTONIC on Linux as `process.hrtime`) lies in [FROM, TO]: bench:follow reports its import window in that
 * clock (`window.monotonicUs`), so a summary can be cut to the import alone.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** The fields of a V8 .cpuprofile this summary reads. */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** One function's self time. */
export interface SelfTime {
  fn: string;
  where: string;
  ms: number;
  pct: number;
}

/** What one thread's profile says. */
export interface ProfileSummary {
  file: string;
  role: string;
  windowMs: number;
  busyMs: number;
  busyPct: number;
  top: SelfTime[];
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

/** The file and line of a call frame, without the directory (bundle chunks have hashed names). */
function where(frame: ProfileNode['callFrame']): string {
  if (!frame.url) return '';
  return `${basename(frame.url)}:${frame.lineNumber + 1}`;
}

/** A thread's role from the functions it spent time in (bench:follow's follower: see the thread list in its report). */
export function guessRole(selfMsByName: Map<string, number>): string {
  const has = (re: RegExp): number => [...selfMsByName].filter(([n]) => re.test(n)).reduce((s, [, ms]) => s + ms, 0);
  const scores: [string, number][] = [
    ['chain thread', has(/^(runBlock|importBatch|applyBatch|executeBlock|StateRootComputer|commitBatch)/)],
    ['recovery worker', has(/^(recoverChunk|recoverAll|ecdsaRecover|recoverPacked)/)],
    ['main thread', has(/^(handleRpc|dispatch|serveHttp|onRequest|parseRequest)/)],
    ['watchdog', has(/^(watchdog|checkHeartbeat)/)],
  ];
  const best = scores.sort((a, b) => b[1] - a[1])[0]!;
  return best[1] > 0 ? best[0] : 'unknown';
}

/** Self time per function of one profile, optionally cut to a monotonic window (µs). */
export function summarizeProfile(profile: CpuProfile, file: string, top = 15, window?: [number, number]): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let t = profile.startTime;
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (window && (t < window[0] || t > window[1])) continue;
    // A sample's time runs to the next sample (V8's own attribution in DevTools).
    const dt = profile.timeDeltas[i + 1] ?? 0;
    first = Math.min(first, t);
    last = Math.max(last, t + dt);
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
  }
  const byFn = new Map<string, { fn: string; where: string; us: number }>();
  const byName = new Map<string, number>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const fn = frame.functionName || '(anonymous)';
    if (fn === '(idle)') continue;
    busyUs += us;
    const key = `${fn} ${where(frame)}`;
    const entry = byFn.get(key) ?? { fn, where: where(frame), us: 0 };
    entry.us += us;
    byFn.set(key, entry);
    byName.set(fn, (byName.get(fn) ?? 0) + us / 1000);
  }
  const windowUs = Number.isFinite(first) ? last - first : 0;
  return {
    file: basename(file),
    role: guessRole(byName),
    windowMs: round1(windowUs / 1000),
    busyMs: round1(busyUs / 1000),
    busyPct: windowUs > 0 ? round1((busyUs / windowUs) * 100) : 0,
    top: [...byFn.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((e) => ({ fn: e.fn, where: e.where, ms: round1(e.us / 1000), pct: busyUs > 0 ? round1((e.us / busyUs) * 100) : 0 })),
  };
}

function profileFiles(paths: string[]): string[] {
  return paths.flatMap((p) =>
    statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => f.endsWith('.cpuprofile'))
          .sort()
          .map((f) => join(p, f))
      : [p],
  );
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const args = process.argv.slice(2);
  const value = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args.splice(i, 2)[1] : undefined;
  };
  const top = Number(value('--top') ?? 15);
  const w = value('--window')?.split(',').map(Number);
  if (w && (w.length !== 2 || w.some((x) => !Number.isFinite(x)))) throw new Error('--window takes FROM_US,TO_US');
  if (args.length === 0) throw new Error('usage: profileSummary.ts DIR|FILE... [--top N] [--window FROM_US,TO_US]');
  const summaries = profileFiles(args).map((f) =>
    summarizeProfile(JSON.parse(readFileSync(f, 'utf8')) as CpuProfile, f, top, w as [number, number] | undefined),
  );
  process.stdout.write(JSON.stringify(summaries, null, 2) + '\n');
  for (const s of summaries)
    process.stderr.write(
      `${s.file} (${s.role}): busy ${s.busyMs} ms of ${s.windowMs} (${s.busyPct} %); top: ${s.top
        .slice(0, 5)
        .map((e) => `${e.fn} ${e.pct} %`)
        .join(', ')}\n`,
    );
}
