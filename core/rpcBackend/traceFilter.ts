/**
 * trace_filter over the store: walks the canonical blocks of a range, traces each with the flatCallTracer and keeps
 * the traces whose sender / recipient match, after `after` skipped, up to `count`. It runs where the trace runs (an
 * RPC execution pool worker): each block's trace JSON is parsed and filtered there, and only the matches come back,
 * as JSON text the RPC splices into its answer (the main loop never parses a block's traces).
 */
import { bytesToHex } from '../primitives/hex.ts';
import { RpcError } from '../rpc/errors.ts';
import type { TraceFilterQuery, TraceOptions } from '../rpc/interface.ts';

/** The tracer trace_filter reads (the trace_ namespace's: Parity-style flat traces). */
export const FLAT_TRACE: TraceOptions = { tracer: 'flatCallTracer', timeoutMs: 5_000, logger: {} };

type FlatTrace = { action: Record<string, string | undefined>; result?: Record<string, string | undefined> | null };
type BlockTrace = { txHash: string; result?: FlatTrace[] | { trace: FlatTrace[] }; error?: string };

/** What the walk needs: a block's trace (geth's [{txHash, result}] text), the canonical hash at a height, a stop flag. */
export interface TraceFilterSource {
  traceBlock(blockHash: Uint8Array, opts: TraceOptions): Promise<string>;
  canonicalHash(number: bigint): Uint8Array | undefined;
  aborted(): boolean;
}

/** The matching flat traces of `q`'s range, as JSON text (an array). */
export async function filterTraces(src: TraceFilterSource, q: TraceFilterQuery): Promise<string> {
  const fromSet = new Set(q.fromAddress.map(bytesToHex));
  const toSet = new Set(q.toAddress.map(bytesToHex));
  const out: FlatTrace[] = [];
  let skipped = 0;
  for (let n = q.from === 0n ? 1n : q.from; n <= q.to; n++) {
    if (src.aborted()) throw new RpcError('TIMEOUT');
    const hash = src.canonicalHash(n);
    if (hash === undefined) break;
    const block = JSON.parse(await src.traceBlock(hash, FLAT_TRACE)) as BlockTrace[];
    for (const t of block) {
      const traces = t.result === undefined ? [] : Array.isArray(t.result) ? t.result : t.result.trace;
      for (const tr of traces) {
        const a = tr.action;
        const fromOk = fromSet.size === 0 || fromSet.has((a.from ?? a.address) as string);
        const toOk = toSet.size === 0 || toSet.has((a.to ?? tr.result?.address ?? a.refundAddress) as string);
        if (!fromOk || !toOk) continue;
        if (skipped < q.after) {
          skipped++;
          continue;
        }
        out.push(tr);
        if (q.count !== undefined && out.length >= q.count) return JSON.stringify(out);
      }
    }
  }
  return JSON.stringify(out);
}
