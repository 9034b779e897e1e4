/**
 * What our node's own /metrics say about the flood's victim window (issue #14's tail: do main-thread GC pauses, a
 * stalled loop or worker replacements line up with the slow victim calls?). Scraped just before and just after the
 * window: the GC histogram and the pool's restart counter are differenced; the event-loop delay gauges are reset by
 * every scrape (prom-client's monitorEventLoopDelay, 10 ms resolution), so the second scrape's max is the window's.
 * A peer without /metrics (anvil) gives undefined.
 */

/** Every sample of a Prometheus text page, keyed by series name with its labels as printed. */
export type Samples = Map<string, number>;

export async function scrapeSamples(url: string): Promise<Samples | undefined> {
  try {
    const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) });
    if (res.status !== 200) return undefined;
    const out: Samples = new Map();
    for (const line of (await res.text()).split('\n')) {
      const m = /^([a-z_:][a-z0-9_:]*(?:\{[^}]*\})?) (\S+)$/i.exec(line);
      if (m) out.set(m[1], Number(m[2]));
    }
    return out;
  } catch {
    return undefined;
  }
}

export interface MainThreadFigures {
  /** Main-thread GC pauses in the window, those over 10 ms and over 100 ms, and their total (ms). */
  gcPauses: number;
  gcPausesOver10ms: number;
  gcPausesOver100ms: number;
  gcMs: number;
  /** The pauses over 10 ms by GC kind (minor = scavenge, major = mark-compact, incremental, weakcb). */
  gcOver10msByKind: Record<string, number>;
  /** Longest event-loop delay seen in the window (ms; includes the monitor's 10 ms resolution). */
  loopDelayMaxMs: number;
  /** Execution-pool workers replaced in the window (a job past its deadline and grace, or a crash). */
  workerRestarts: number;
}

const GC = 'xone_nodejs_gc_duration_seconds';

/** Sum over the GC kinds (or of one `kind`) of `series` (`_count`, `_sum`, or `_bucket` at `le`). */
function gcTotal(s: Samples, series: '_count' | '_sum' | '_bucket', le?: string, kind?: string): number {
  let n = 0;
  for (const [key, v] of s) {
    if (!key.startsWith(GC + series + '{')) continue;
    if (le !== undefined && !key.includes(`le="${le}"`)) continue;
    if (kind !== undefined && !key.includes(`kind="${kind}"`)) continue;
    n += v;
  }
  return n;
}

const GC_KINDS = ['minor', 'major', 'incremental', 'weakcb'];

export function windowFigures(before: Samples, after: Samples): MainThreadFigures {
  const d = (f: (s: Samples) => number): number => f(after) - f(before);
  const pauses = d((s) => gcTotal(s, '_count'));
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    gcPauses: pauses,
    gcPausesOver10ms: pauses - d((s) => gcTotal(s, '_bucket', '0.01')),
    gcPausesOver100ms: pauses - d((s) => gcTotal(s, '_bucket', '0.1')),
    gcMs: round(d((s) => gcTotal(s, '_sum')) * 1000),
    gcOver10msByKind: Object.fromEntries(
      GC_KINDS.map((k) => [k, d((s) => gcTotal(s, '_count', undefined, k)) - d((s) => gcTotal(s, '_bucket', '0.01', k))]).filter(
        ([, n]) => (n as number) > 0,
      ),
    ),
    loopDelayMaxMs: round((after.get('xone_nodejs_eventloop_lag_max_seconds') ?? NaN) * 1000),
    workerRestarts: d((s) => s.get('xone_rpc_pool_worker_restarts_total') ?? 0),
  };
}
