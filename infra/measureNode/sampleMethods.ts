import type { MethodSpec } from './methods.ts';
import { nearestRank } from './percentile.ts';
import type { RpcCaller } from './rpcCall.ts';
import type { CallFailure, FailureCount, MethodResult } from './types.ts';

/**
 * Calls each method `calls` times in sequence (one method's series, then the next, as the seed's tool did); the
 * caller spaces the calls when `--pause-ms` is set (pacedCaller.ts). Failed calls are recorded with their reason and
 * kept out of the percentiles (issue #1222).
 */
export async function sampleMethods(caller: RpcCaller, methods: readonly MethodSpec[], calls: number): Promise<MethodResult[]> {
  const results: MethodResult[] = [];
  for (const spec of methods) {
    const latenciesMs: number[] = [];
    const failures: CallFailure[] = [];
    for (let i = 0; i < calls; i++) {
      const outcome = await caller.call(spec.method, spec.params);
      if (outcome.ok) latenciesMs.push(outcome.ms);
      else failures.push({ index: i, ...outcome.failure });
    }
    results.push(summarizeMethod(spec, calls, latenciesMs, failures));
  }
  return results;
}

/** Builds one method's result from its successful latencies and its failures. */
export function summarizeMethod(spec: MethodSpec, calls: number, latenciesMs: number[], failures: CallFailure[]): MethodResult {
  return {
    label: spec.label,
    method: spec.method,
    params: spec.params,
    calls,
    ok: latenciesMs.length,
    failed: failures.length,
    p50Ms: nearestRank(latenciesMs, 50),
    p95Ms: nearestRank(latenciesMs, 95),
    minMs: latenciesMs.length ? Math.min(...latenciesMs) : null,
    maxMs: latenciesMs.length ? Math.max(...latenciesMs) : null,
    latenciesMs,
    failures,
    failureSummary: countFailures(failures),
  };
}

/** Groups failures by reason, most frequent first. */
export function countFailures(failures: readonly CallFailure[]): FailureCount[] {
  const byReason = new Map<string, FailureCount>();
  for (const f of failures) {
    const entry = byReason.get(f.reason);
    if (entry) entry.count++;
    else byReason.set(f.reason, { reason: f.reason, count: 1, example: f.message });
  }
  return [...byReason.values()].sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}
