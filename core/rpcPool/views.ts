/**
 * The RPC interfaces (core/rpc/interface.ts) served through an executor: each method becomes one job of the table in
 * jobs.ts, run under the request's scope (fairness key, deadline, cancellation) and --rpc.evmtimeout.
 */
import { callTimeout } from '../exec/call/timeout.ts';
import { CoreError } from '../errors.ts';
import { RpcError } from '../rpc/errors.ts';
import { RawJson } from '../rpc/json.ts';
import type {
  AccountProof,
  CallRequest,
  ExecOptions,
  ExecutionView,
  LogQuery,
  LogReadOptions,
  RequestScope,
  SimulateView,
  TraceOptions,
  TraceView,
} from '../rpc/interface.ts';
import type { SimulateViewOptions } from '../rpcBackend/simulateView.ts';
import type { TraceViewOptions } from '../rpcBackend/traceView.ts';
import type { HeaderData } from '../rpc/encode/types.ts';
import type { JobScope, RpcExecutor } from './types.ts';

/** eth_call / estimateGas / createAccessList as pool jobs with a budget of `evmTimeoutMs` each. */
export function pooledExecutionView(executor: RpcExecutor, evmTimeoutMs: number): ExecutionView {
  const scope = (opts: ExecOptions): JobScope => ({
    client: opts.client,
    deadline: opts.deadline,
    signal: opts.signal,
    budgetMs: evmTimeoutMs,
    // geth's answer for a call stopped by --rpc.evmtimeout (-32000), also when the pool had to stop it by force.
    budgetError: () => new CoreError('EVM_TIMEOUT', callTimeout({ timeoutMs: evmTimeoutMs }).message),
  });
  const params = (req: CallRequest, at: HeaderData, opts: ExecOptions) => ({
    req,
    at: { number: at.number, hash: at.hash },
    gasCap: opts.gasCap,
    ...(opts.overrides !== undefined ? { overrides: opts.overrides } : {}),
  });
  return {
    call: (req, at, opts) => executor.run('call', params(req, at, opts), scope(opts)),
    estimateGas: (req, at, opts) => executor.run('estimateGas', params(req, at, opts), scope(opts)),
    createAccessList: (req, at, opts) => executor.run('createAccessList', params(req, at, opts), scope(opts)),
  };
}

/** eth_getLogs as a pool job that answers the encoded JSON array (StoreChainView's `getLogsJson` offload). */
export function pooledLogs(executor: RpcExecutor): (query: LogQuery, opts: LogReadOptions) => Promise<RawJson> {
  return (query, opts) =>
    executor
      .run(
        'getLogsJson',
        { query, limit: opts.limit, deadline: opts.deadline },
        { client: opts.client ?? 'node', deadline: opts.deadline, signal: opts.signal },
      )
      .then(RawJson.framed);
}

/** eth_getProof as a pool job (StoreStateView's `getProof` offload). */
export function pooledProofs(
  executor: RpcExecutor,
): (address: Uint8Array, slots: Uint8Array[], at: HeaderData, scope: RequestScope) => Promise<AccountProof> {
  return (address, slots, at, scope) =>
    executor.run(
      'getProof',
      { address, slots, at, deadline: scope.deadline },
      { client: scope.client, deadline: scope.deadline, signal: scope.signal },
    );
}

/** A request without a scope (an in-process caller): the node's own fairness key, a deadline of `ms` from now. */
const ownScope = (ms: number): RequestScope => ({ client: 'node', deadline: Date.now() + ms, signal: AbortSignal.timeout(ms) });

/** The deadline of a trace_filter made without a request scope (an in-process caller). */
const FILTER_MS = 30_000;

/**
 * debug_trace* as pool jobs: the worker runs StoreTraceView (core/rpcBackend/traceView.ts) as it is, on its own
 * snapshot. The tracer's `timeout` is the job's budget; a worker that overruns it is replaced and its caller gets the
 * trace view's own "execution timeout".
 */
export function pooledTraceView(executor: RpcExecutor, view: TraceViewOptions): TraceView {
  const scope = (opts: TraceOptions, s: RequestScope = ownScope(opts.timeoutMs)): JobScope => ({
    client: s.client,
    deadline: s.deadline,
    signal: s.signal,
    budgetMs: opts.timeoutMs,
    budgetError: () => new RpcError('SERVER_ERROR', 'execution timeout'),
  });
  return {
    traceTransaction: (hash, opts, s) => executor.run('traceTransaction', { view, opts, target: hash }, scope(opts, s)),
    traceBlock: (hash, opts, s) => executor.run('traceBlock', { view, opts, target: hash }, scope(opts, s)),
    traceBlockRlp: (rlp, opts, s) => executor.run('traceBlockRlp', { view, opts, target: rlp }, scope(opts, s)),
    // One job for the whole range (each block's trace keeps its own 5 s timeout): the request's deadline bounds it.
    traceFilter: (query, s = ownScope(FILTER_MS)) =>
      executor.run('traceFilter', { view, query }, { client: s.client, deadline: s.deadline, signal: s.signal }),
    traceCall: (req, at, opts, overrides, s) =>
      executor.run('traceCall', { view, opts, target: { req, at, ...(overrides ? { overrides } : {}) } }, scope(opts, s)),
  };
}

/** eth_simulateV1 as a pool job: the worker runs StoreSimulateView as it is, with --rpc.evmtimeout as its budget. */
export function pooledSimulateView(executor: RpcExecutor, view: SimulateViewOptions): SimulateView {
  return {
    simulate: (payload, at, s = ownScope(view.timeoutMs)) =>
      executor.run(
        'simulate',
        { view, payload, at },
        {
          client: s.client,
          deadline: s.deadline,
          signal: s.signal,
          budgetMs: view.timeoutMs,
          budgetError: () => new RpcError('SIM_TIMEOUT', 'execution timeout'),
        },
      ),
  };
}
