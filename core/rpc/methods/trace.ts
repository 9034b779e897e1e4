/**
 * The trace_ namespace (OpenEthereum/Erigon's Parity-style traces, what Blockscout and many indexers read), served
 * from the flatCallTracer: trace_transaction, trace_block, trace_filter, trace_replayTransaction and
 * trace_replayBlockTransactions (types "trace", "vmTrace" and "stateDiff").
 */
import { type BlockSelector, blockNumber } from '../blockParams.ts';
import { RpcError } from '../errors.ts';
import { type RequestScope, type TraceOptions } from '../interface.ts';
import { ParamError, address, arrayOf, hash, jsonKind, required, string, uint } from '../params.ts';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { RawJson } from '../json.ts';

const FLAT: TraceOptions = { tracer: 'flatCallTracer', timeoutMs: 5_000, logger: {} };
/** Most blocks one trace_filter may walk. */
const FILTER_MAX_BLOCKS = 1_000;

type FlatTrace = Record<string, unknown> & { action: Record<string, string>; result?: Record<string, string> };

const TRACE_TYPES = new Set(['trace', 'vmTrace', 'stateDiff']);

function traceTypes(v: unknown): string[] {
  const types = arrayOf(string, '[]string')(v);
  for (const t of types) if (!TRACE_TYPES.has(t)) throw new ParamError(`unknown trace type "${t}"`);
  return types;
}

/** The flatCallTracer, with the vmTrace and stateDiff when the replay asks for them. */
function replayOptions(types: string[]): TraceOptions {
  const vmTrace = types.includes('vmTrace');
  const stateDiff = types.includes('stateDiff');
  return vmTrace || stateDiff ? { ...FLAT, replay: { vmTrace, stateDiff } } : FLAT;
}

interface Replayed {
  trace: FlatTrace[];
  vmTrace: unknown;
  stateDiff: unknown;
}

/** A tracer answer as a replay: the flat traces alone (type "trace" only) or with the vmTrace and stateDiff. */
const replayed = (r: FlatTrace[] | Replayed): Replayed => (Array.isArray(r) ? { trace: r, vmTrace: null, stateDiff: null } : r);

/** A replay answer: the top call's output, its traces without the block fields, the vmTrace and stateDiff asked for. */
function replay(r: Replayed, types: string[], txHash?: string): Record<string, unknown> {
  const traces = r.trace;
  const out: Record<string, unknown> = {
    output: traces[0]?.result?.output ?? '0x',
    stateDiff: types.includes('stateDiff') ? r.stateDiff : null,
  };
  out.trace = types.includes('trace')
    ? traces.map(({ blockHash: _h, blockNumber: _n, transactionHash: _t, transactionPosition: _p, ...rest }) => rest)
    : [];
  if (txHash) out.transactionHash = txHash;
  out.vmTrace = types.includes('vmTrace') ? r.vmTrace : null;
  return out;
}

export function traceMethods(s: RpcServices): MethodTable {
  const trace = s.deps.trace;
  if (!trace) return {};
  const flags = { expensive: true };
  // Each trace runs as an execution-pool job under the request's scope (its client's share, deadline, hang-up).
  const ofTx = async (h: Uint8Array, scope: RequestScope, opts = FLAT): Promise<FlatTrace[] | Replayed | null> => {
    const text = await trace.traceTransaction(h, opts, scope);
    return text === null ? null : (JSON.parse(text) as FlatTrace[] | Replayed);
  };
  type BlockTrace = { txHash: string; result?: FlatTrace[] | Replayed; error?: string };
  const ofBlock = async (blockHash: Uint8Array, scope: RequestScope, opts = FLAT): Promise<BlockTrace[]> =>
    JSON.parse(await trace.traceBlock(blockHash, opts, scope)) as BlockTrace[];
  const flat = (r: FlatTrace[] | Replayed | undefined): FlatTrace[] => (r === undefined ? [] : replayed(r).trace);
  return {
    trace_transaction: method(
      [required(hash)] as const,
      async ([h], ctx) => {
        const r = await ofTx(h, ctx);
        return r === null ? null : flat(r);
      },
      flags,
    ),
    trace_block: method(
      [required(blockNumber)] as const,
      async ([sel], ctx) => {
        const header = await s.blocks.header(sel);
        if (header === null) return null;
        if (header.number === 0n) return [];
        return (await ofBlock(header.hash, ctx)).flatMap((t) => flat(t.result));
      },
      flags,
    ),
    trace_replayTransaction: method(
      [required(hash), required(traceTypes)] as const,
      async ([h, types], ctx) => {
        const r = await ofTx(h, ctx, replayOptions(types));
        if (r === null) throw new RpcError('SERVER_ERROR', 'transaction not found');
        return replay(replayed(r), types);
      },
      flags,
    ),
    trace_replayBlockTransactions: method(
      [required(blockNumber), required(traceTypes)] as const,
      async ([sel, types], ctx) => {
        const header = await s.blocks.header(sel);
        if (header === null) return null;
        if (header.number === 0n) return [];
        return (await ofBlock(header.hash, ctx, replayOptions(types))).map((t) => replay(replayed(t.result ?? []), types, t.txHash));
      },
      flags,
    ),
    trace_filter: method(
      [required(filterParam)] as const,
      async ([f], ctx) => {
        const head = s.deps.chain.head().number;
        const from = f.fromBlock === undefined ? head : s.blocks.number(f.fromBlock);
        const to = f.toBlock === undefined ? head : s.blocks.number(f.toBlock);
        if (from === null || to === null) throw new RpcError('SERVER_ERROR', 'unknown block');
        if (to < from) throw new RpcError('SERVER_ERROR', 'invalid block range params');
        if (to - from + 1n > BigInt(FILTER_MAX_BLOCKS))
          throw new RpcError('LIMIT_EXCEEDED', `query exceeds max block range ${FILTER_MAX_BLOCKS}`);
        // Traced, parsed and filtered in one execution-pool job: only the matches reach the main loop, unparsed.
        const query = {
          from,
          to,
          fromAddress: f.fromAddress,
          toAddress: f.toAddress,
          after: f.after,
          ...(f.count !== undefined ? { count: f.count } : {}),
        };
        return new RawJson(await trace.traceFilter(query, ctx));
      },
      flags,
    ),
  };
}

interface TraceFilter {
  fromBlock?: BlockSelector;
  toBlock?: BlockSelector;
  fromAddress: Uint8Array[];
  toAddress: Uint8Array[];
  after: number;
  count?: number;
}

function filterParam(v: unknown): TraceFilter {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type TraceFilter`);
  const o = v as Record<string, unknown>;
  const addrs = (x: unknown): Uint8Array[] => (x == null ? [] : Array.isArray(x) ? x.map(address) : [address(x)]);
  // Erigon takes `after` and `count` as JSON numbers; a hex quantity is accepted too.
  const count = (x: unknown): number => (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : uint(x));
  const out: TraceFilter = {
    fromAddress: addrs(o.fromAddress),
    toAddress: addrs(o.toAddress),
    after: o.after == null ? 0 : count(o.after),
  };
  if (o.fromBlock != null) out.fromBlock = blockNumber(o.fromBlock);
  if (o.toBlock != null) out.toBlock = blockNumber(o.toBlock);
  if (o.count != null) out.count = count(o.count);
  return out;
}
