/**
 * The job table of the RPC execution pool: every state read that can take time, as a function of (request, store
 * snapshot, deadline). A worker runs one job at a time inside one read transaction of its own read-only connection,
 * so everything a job reads comes from one WAL snapshot, whatever the chain thread commits meanwhile.
 *
 * Adding a job: add an entry here whose params and result are structured-
 * clonable (bytes, bigints, plain objects; no functions or class instances), call it from the main thread with
 * `executor.run('name', params, scope)`, and map its errors like the others (throw CoreErrors, whose codes
 * core/rpc/errors.ts CORE_ERRORS maps, or RpcErrors). A job stops when `ctx.interrupt.aborted` turns true or its
 * budget ends: check one of them between rows or steps, and the pool terminates the worker if it does not.
 */
import type { ChainConfig } from '../chain/forks.ts';
import { CoreError } from '../errors.ts';
import { equalBytes } from '../primitives/hex.ts';
import { chooseSecp256k1 } from '../primitives/secp256k1/index.ts';
import type { CallRequest } from '../rpc/interface.ts';
import type { HeaderData } from '../rpc/encode/types.ts';
import type { Interrupt } from '../exec/call/index.ts';
import type { StoreChainView } from '../rpcBackend/chainView.ts';
import type { StoreExecutionView } from '../rpcBackend/execView.ts';
import type { StoreSimulateView, SimulateViewOptions } from '../rpcBackend/simulateView.ts';
import type { StoreStateView } from '../rpcBackend/stateView.ts';
import type { StoreTraceView, TraceViewOptions } from '../rpcBackend/traceView.ts';
import { encodeLog } from '../rpc/encode/receipt.ts';
import { framedUtf8 } from '../rpc/json.ts';
import type { LogQuery, RequestScope, StateOverrides, TraceFilterQuery, TraceOptions } from '../rpc/interface.ts';
import type { SimulatePayload } from '../rpc/simulateParams.ts';
import type { ChainReader } from '../store/index.ts';

/** What a job gets besides its params. */
export interface JobContext {
  /** The worker's read-only store; the job runs inside one read transaction (one snapshot). */
  reader: ChainReader;
  config: ChainConfig;
  /** Turns true once the main thread cancelled the job (client gone, request deadline) or its budget ended. */
  interrupt: Interrupt;
  /** Execution budget in ms (--rpc.evmtimeout for EVM jobs), counted from the job's start in the worker. */
  budgetMs: number;
  /** Views over `reader`, built once per worker (the EVM, trace and simulate views per job: they carry its limits). */
  views: {
    exec: (budgetMs: number) => StoreExecutionView;
    chain: StoreChainView;
    state: StoreStateView;
    trace: (options: TraceViewOptions) => StoreTraceView;
    simulate: (options: SimulateViewOptions) => StoreSimulateView;
  };
}

/**
 * `interrupt` where a store read wants an AbortSignal: the store only reads `aborted` between rows (core/store
 * Deadline), which the shared-memory flag answers; nothing here can fire events.
 */
const signalOf = (ctx: JobContext): AbortSignal => ctx.interrupt as unknown as AbortSignal;

/** The params of eth_getLogs: the resolved query, the result cap and the call's deadline (epoch ms). */
export interface LogsJobParams {
  query: LogQuery;
  limit: number;
  deadline: number;
}

/** The params of eth_getProof. */
export interface ProofJobParams {
  address: Uint8Array;
  slots: Uint8Array[];
  at: HeaderData;
  deadline: number;
}

/**
 * The params of the debug_trace* jobs: the trace view's limits, the tracer options (their `timeout` counted from the
 * job's start in the worker, as geth counts it from the trace's) and what to trace.
 */
export interface TraceJobParams<T> {
  view: TraceViewOptions;
  opts: TraceOptions;
  target: T;
}

/** The params of eth_simulateV1: the simulate view's limits (gas cap, --rpc.evmtimeout), the payload, the block. */
export interface SimulateJobParams {
  view: SimulateViewOptions;
  payload: SimulatePayload;
  at: HeaderData;
}

/** A block as a job names it: the EVM jobs need only its number (and the hash, to check it is still canonical). */
export type BlockRef = Pick<HeaderData, 'number' | 'hash'>;

/**
 * The params of the EVM jobs: the request, the block it runs on, the gas cap. The block goes as its number and hash
 * only: the whole header was most of the message (1.2 kB, structured-cloned on the main thread for every call).
 */
export interface ExecJobParams {
  req: CallRequest;
  at: BlockRef;
  gasCap: bigint;
  /** eth_call / eth_estimateGas state overrides. */
  overrides?: StateOverrides;
}

/**
 * The block a job runs on must still be canonical in the job's snapshot: state is kept for the canonical chain, so
 * after a reorg (between the main thread resolving the block and the job starting) the state at that number would be
 * another block's.
 */
function requireCanonical(ctx: JobContext, at: BlockRef): void {
  const hash = ctx.reader.getCanonicalHash(Number(at.number));
  if (hash === undefined || !equalBytes(hash, at.hash)) throw new CoreError('STATE_UNAVAILABLE', 'hash is not currently canonical');
}

const execOpts = (p: ExecJobParams, ctx: JobContext) => ({
  gasCap: p.gasCap,
  signal: ctx.interrupt,
  ...(p.overrides !== undefined ? { overrides: p.overrides } : {}),
});

export const POOL_JOBS = {
  /** eth_call. */
  call: (p: ExecJobParams, ctx: JobContext) => {
    requireCanonical(ctx, p.at);
    return ctx.views.exec(ctx.budgetMs).call(p.req, p.at, execOpts(p, ctx));
  },
  /** eth_estimateGas. */
  estimateGas: (p: ExecJobParams, ctx: JobContext) => {
    requireCanonical(ctx, p.at);
    return ctx.views.exec(ctx.budgetMs).estimateGas(p.req, p.at, execOpts(p, ctx));
  },
  /** eth_createAccessList. */
  createAccessList: (p: ExecJobParams, ctx: JobContext) => {
    requireCanonical(ctx, p.at);
    return ctx.views.exec(ctx.budgetMs).createAccessList(p.req, p.at, execOpts(p, ctx));
  },
  /**
   * eth_getLogs, answered as the JSON array the client gets, in UTF-8 with room for the response around it (encoded
   * here, not on the main loop; the bytes are moved to the main thread, not copied).
   */
  getLogsJson: (p: LogsJobParams, ctx: JobContext) => {
    const logs = ctx.views.chain.getLogs(p.query, { limit: p.limit, deadline: p.deadline, signal: signalOf(ctx) });
    return framedUtf8(JSON.stringify(logs.map(encodeLog)));
  },
  /** eth_getProof. */
  getProof: (p: ProofJobParams, ctx: JobContext) => {
    requireCanonical(ctx, p.at);
    const scope: RequestScope = { signal: signalOf(ctx), deadline: p.deadline, client: '' };
    return ctx.views.state.getProof(p.address, p.slots, p.at, scope);
  },
  /** debug_traceTransaction (JSON text; null: not in a canonical block). */
  traceTransaction: (p: TraceJobParams<Uint8Array>, ctx: JobContext) => ctx.views.trace(p.view).traceTransaction(p.target, p.opts),
  /** debug_traceBlockByHash / ByNumber. */
  traceBlock: (p: TraceJobParams<Uint8Array>, ctx: JobContext) => ctx.views.trace(p.view).traceBlock(p.target, p.opts),
  /** debug_traceBlock (a block given as RLP). */
  traceBlockRlp: (p: TraceJobParams<Uint8Array>, ctx: JobContext) => ctx.views.trace(p.view).traceBlockRlp(p.target, p.opts),
  /** trace_filter: the blocks traced, parsed and filtered here; the matches as JSON text. */
  traceFilter: (p: { view: TraceViewOptions; query: TraceFilterQuery }, ctx: JobContext) =>
    ctx.views.trace(p.view).traceFilter(p.query, undefined, () => ctx.interrupt.aborted),
  /** debug_traceCall. */
  traceCall: (p: TraceJobParams<{ req: CallRequest; at: HeaderData; overrides?: StateOverrides }>, ctx: JobContext) => {
    requireCanonical(ctx, p.target.at);
    return ctx.views.trace(p.view).traceCall(p.target.req, p.target.at, p.opts, p.target.overrides);
  },
  /** eth_simulateV1 (JSON text). */
  simulate: (p: SimulateJobParams, ctx: JobContext) => {
    requireCanonical(ctx, p.at);
    return ctx.views.simulate(p.view).simulate(p.payload, p.at);
  },
  /** A job that only waits for its interrupt (tests: cancellation, deadlines, worker replacement). */
  spin: (p: { ms: number; ignoreInterrupt?: boolean }, ctx: JobContext) => {
    const end = performance.now() + p.ms;
    while (performance.now() < end) {
      if (!p.ignoreInterrupt && ctx.interrupt.aborted) throw new CoreError('STORE_READ_TIMEOUT', 'request timed out');
    }
    return p.ms;
  },
  /**
   * A job that keeps calling native libsecp256k1 (public key recovery) and never checks its interrupt (tests: a worker
   * terminated inside a native addon call must not abort the process). Recovers with @noble/curves where the native
   * binding did not load.
   */
  spinNative: (p: { ms: number }) => {
    const backend = chooseSecp256k1('native');
    const hash = new Uint8Array(32).fill(1);
    const sig = backend.sign(hash, new Uint8Array(32).fill(2));
    const end = performance.now() + p.ms;
    let n = 0;
    for (; performance.now() < end; n++) backend.recoverPublicKey(hash, sig.r, sig.s, sig.recovery);
    return n;
  },
} satisfies Record<string, (params: never, ctx: JobContext) => unknown>;

export type PoolJobs = typeof POOL_JOBS;
export type JobKind = keyof PoolJobs;
export type JobParams<K extends JobKind> = Parameters<PoolJobs[K]>[0];
export type JobResult<K extends JobKind> = Awaited<ReturnType<PoolJobs[K]>>;
