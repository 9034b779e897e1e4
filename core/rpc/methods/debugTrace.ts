/**
 * geth's debug_trace* methods: debug_traceTransaction, debug_traceCall (state and block overrides),
 * debug_traceBlockByNumber, debug_traceBlockByHash and debug_traceBlock (raw RLP). Answers are JSON text from the
 * TraceView, spliced into the response unparsed (a struct-logger trace can be megabytes).
 */
import { blockNumber, blockNumberOrHash } from '../blockParams.ts';
import { callRequest } from '../callParams.ts';
import { RpcError } from '../errors.ts';
import { RawJson } from '../json.ts';
import { data, hash, optional, required } from '../params.ts';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { blockOverrides } from '../simulateParams.ts';
import { traceConfig } from '../traceParams.ts';
import { stateOverrides } from './ethState.ts';

export function debugTraceMethods(s: RpcServices): MethodTable {
  const trace = s.deps.trace;
  if (!trace) return {};
  const flags = { expensive: true };
  return {
    debug_traceTransaction: method(
      [required(hash), optional(traceConfig)] as const,
      async ([h, cfg], ctx) => {
        const text = await trace.traceTransaction(h, cfg ?? traceConfig(undefined), ctx);
        if (text === null) throw new RpcError('SERVER_ERROR', 'transaction not found');
        return new RawJson(text);
      },
      flags,
    ),
    debug_traceCall: method(
      [required(callRequest), optional(blockNumberOrHash), optional((v: unknown) => v)] as const,
      async ([req, sel, raw], ctx) => {
        const cfg = traceConfig(raw);
        const o = (raw ?? {}) as Record<string, unknown>;
        const overrides = o.stateOverrides == null ? undefined : stateOverrides(o.stateOverrides);
        if (o.blockOverrides != null) cfg.blockOverrides = blockOverrides(o.blockOverrides);
        const header = await s.blocks.stateHeader(sel ?? { tag: 'latest' });
        return new RawJson(await trace.traceCall(req, header, cfg, overrides, ctx));
      },
      flags,
    ),
    debug_traceBlockByNumber: method(
      [required(blockNumber), optional(traceConfig)] as const,
      async ([sel, cfg], ctx) => {
        const header = await s.blocks.header(sel);
        if (header === null) throw new RpcError('SERVER_ERROR', 'block not found');
        return new RawJson(await trace.traceBlock(header.hash, cfg ?? traceConfig(undefined), ctx));
      },
      flags,
    ),
    debug_traceBlockByHash: method(
      [required(hash), optional(traceConfig)] as const,
      async ([h, cfg], ctx) => new RawJson(await trace.traceBlock(h, cfg ?? traceConfig(undefined), ctx)),
      flags,
    ),
    debug_traceBlock: method(
      [required(data), optional(traceConfig)] as const,
      async ([rlp, cfg], ctx) => new RawJson(await trace.traceBlockRlp(rlp, cfg ?? traceConfig(undefined), ctx)),
      flags,
    ),
  };
}
