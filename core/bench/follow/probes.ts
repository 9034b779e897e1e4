/**
 * What bench:follow watches while the follower imports: RPC latency of eth_blockNumber and eth_getBalance sent to it
 * back to back (the head they report also tells when the import is done), its RSS, and its `/metrics` (the loop-lag
 * histogram and the import counters), read as differences between two scrapes so start-up does not count.
 */
import { call } from '../rpc/client.ts';
import type { NodeProcess, ProcMemory } from './process.ts';

/** One timed call. */
export interface Sample {
  method: 'eth_blockNumber' | 'eth_getBalance';
  at: number;
  ms: number;
  ok: boolean;
}

/** A running RPC probe; `stop()` ends it and returns its samples. */
export interface RpcProbe {
  samples: Sample[];
  /** The follower's head as last reported by eth_blockNumber. */
  head(): number;
  stop(): Promise<Sample[]>;
}

/** Calls eth_blockNumber and eth_getBalance(address) alternately, `gapMs` apart, until stopped. */
export function startRpcProbe(url: string, address: string, gapMs: number, onHead: (head: number, at: number) => void): RpcProbe {
  const samples: Sample[] = [];
  let stopped = false;
  let head = -1;
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      const method = i % 2 === 0 ? 'eth_blockNumber' : 'eth_getBalance';
      const r = await call(url, method, method === 'eth_blockNumber' ? [] : [address, 'latest']);
      const at = performance.now();
      samples.push({ method, at, ms: r.ms, ok: r.code === undefined });
      if (method === 'eth_blockNumber' && typeof r.result === 'string') {
        head = Number(r.result);
        onHead(head, at);
      }
      await new Promise((res) => setTimeout(res, gapMs));
    }
  })();
  return {
    samples,
    head: () => head,
    async stop() {
      stopped = true;
      await loop;
      return samples;
    },
  };
}

/** One memory sample of a node process (MB, /proc/PID/status) with its time. */
export type MemorySample = ProcMemory & { at: number };

/** Samples `proc`'s memory every `everyMs`. */
export function startMemorySampler(proc: NodeProcess, everyMs: number): { samples: MemorySample[]; stop(): void } {
  const samples: MemorySample[] = [];
  const timer = setInterval(() => {
    const m = proc.memory();
    if (m !== undefined) samples.push({ ...m, at: performance.now() });
  }, everyMs);
  return { samples, stop: () => clearInterval(timer) };
}

/** Memory of one phase: the median of each figure over `samples` (VmHWM: the last), and the largest VmRSS. */
export interface PhaseMemory {
  vmRss: number;
  rssAnon: number;
  rssFile: number;
  /** The process's high-water mark at the end of the phase. */
  vmHwm: number;
  maxVmRss: number;
  samples: number;
}

/** Summarizes the samples taken in [from, to]. */
export function phaseMemory(samples: readonly MemorySample[], from: number, to: number): PhaseMemory {
  const inPhase = samples.filter((s) => s.at >= from && s.at <= to);
  const median = (pick: (s: MemorySample) => number): number => {
    const xs = inPhase.map(pick).sort((a, b) => a - b);
    return xs.length === 0 ? NaN : (xs[Math.floor(xs.length / 2)] as number);
  };
  return {
    vmRss: median((s) => s.vmRss),
    rssAnon: median((s) => s.rssAnon),
    rssFile: median((s) => s.rssFile),
    vmHwm: inPhase[inPhase.length - 1]?.vmHwm ?? NaN,
    maxVmRss: Math.max(0, ...inPhase.map((s) => s.vmRss)),
    samples: inPhase.length,
  };
}

/** `/metrics` as series → value, labels kept in the key (`xone_loop_lag_seconds_bucket{le="0.05"}`). */
export async function scrapeMetrics(url: string): Promise<Map<string, number>> {
  const res = await fetch(`${url}/metrics`);
  if (res.status !== 200) throw new Error(`${url}/metrics answered ${res.status}`);
  const out = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}

/** Cumulative bucket counts of histogram `name` between two scrapes, by upper bound (seconds; +Inf last). */
export function histogramDelta(name: string, before: Map<string, number>, after: Map<string, number>): { le: number; count: number }[] {
  const out: { le: number; count: number }[] = [];
  for (const [key, value] of after) {
    const m = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\}$`).exec(key);
    if (!m) continue;
    out.push({ le: m[1] === '+Inf' ? Infinity : Number(m[1]), count: value - (before.get(key) ?? 0) });
  }
  return out.sort((a, b) => a.le - b.le);
}

/**
 * The q-quantile of a cumulative histogram, interpolated linearly inside its bucket as Prometheus'
 * `histogram_quantile` does (the answer can be off by up to the bucket's width).
 */
export function histogramQuantile(q: number, buckets: { le: number; count: number }[]): number {
  const total = buckets[buckets.length - 1]?.count ?? 0;
  if (total === 0) return NaN;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const b of buckets) {
    if (b.count >= rank) {
      if (b.le === Infinity) return prevLe;
      return prevLe + ((b.le - prevLe) * (rank - prevCount)) / Math.max(1, b.count - prevCount);
    }
    prevLe = b.le;
    prevCount = b.count;
  }
  return prevLe;
}

/** Upper bound of the highest bucket that gained samples (the longest lateness is at most this). */
export function highestBucket(buckets: { le: number; count: number }[]): number {
  let prev = 0;
  let top = 0;
  for (const b of buckets) {
    if (b.count > prev) top = b.le;
    prev = b.count;
  }
  return top;
}
