/**
 * geth's debug_trace* methods: debug_traceTransaction, debug_traceCall (state and block overrides),
 * debug_traceBlockByNumber, debug_traceBlockByHash and debug_traceBlock (raw RLP). Answers are JSON text from the
 * TraceView, spliced into the response unparsed (a struct-logger trace can be megabytes).
 */
import { bytesToHex } from '../../primitives/hex.ts';
import { type BlockSelector, blockNumber, blockNumberOrHash } from '../blockParams.ts';
import { type HeaderData } from '../encode/types.ts';
import { callRequest } from '../callParams.ts';
import { RpcError } from '../errors.ts';
import { RawJson } from '../json.ts';
import { data, hash, optional, required } from '../params.ts';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { blockOverrides } from '../simulateParams.ts';
import { traceConfig } from '../traceParams.ts';
import { stateOverrides } from './ethState.ts';

/** The block a trace runs in, or geth's tracer API errors (-32000 "block #N not found", "block 0x… not found"). */
async function tracedBlockHeader(s: RpcServices, sel: BlockSelector): Promise<HeaderData> {
  const header = await s.blocks.header(sel);
  if (header !== null) return header;
  const what = 'hash' in sel ? bytesToHex(sel.hash) : `#${s.blocks.number(sel)}`;
  throw new RpcError('SERVER_ERROR', `block ${what} not found`);
}

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
        const at = sel ?? { tag: 'latest' };
        if ('tag' in at && at.tag === 'pending') throw new RpcError('SERVER_ERROR', 'tracing on top of pending is not supported');
        await tracedBlockHeader(s, at);
        const header = await s.blocks.stateHeader(at);
        return new RawJson(await trace.traceCall(req, header, cfg, overrides, ctx));
      },
      flags,
    ),
    debug_traceBlockByNumber: method(
      [required(blockNumber), optional(traceConfig)] as const,
      async ([sel, cfg], ctx) => {
        const header = await tracedBlockHeader(s, sel);
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
