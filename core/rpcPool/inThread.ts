/**
 * The executor interface run on the calling thread, over the caller's read-only store handle: for tests, tools
 * (rpc-compat's fixture node) and the in-loop comparison of bench:rpc-isolation. It gives no isolation: a long job
 * blocks the thread that runs it, so the node never serves a public endpoint with it. Deadlines are checked by the job
 * itself (the EVM's clock check); nothing can stop a job that does not check.
 */
import type { ChainConfig } from '../chain/forks.ts';
import { EvmHostPool } from '../exec/evmHostPool.ts';
import type { StoreChainView } from '../rpcBackend/chainView.ts';
import { StoreExecutionView } from '../rpcBackend/execView.ts';
import { StoreSimulateView } from '../rpcBackend/simulateView.ts';
import type { StoreStateView } from '../rpcBackend/stateView.ts';
import { StoreTraceView } from '../rpcBackend/traceView.ts';
import type { ChainReader } from '../store/index.ts';
import { RpcPoolError } from './errors.ts';
import { POOL_JOBS, type JobContext } from './jobs.ts';
import type { JobKind, JobParams, JobResult, JobScope, RpcExecutor } from './types.ts';

export class InThreadExecutor implements RpcExecutor {
  private closed = false;
  /** The same EVM reuse as a pool worker's, so the in-loop comparison runs the same EVM code. */
  private readonly hosts = new EvmHostPool();

  constructor(
    private readonly reader: ChainReader,
    private readonly config: ChainConfig,
    /** The caller's views over `reader` (built without offloading, or a job would come back here). */
    private readonly chain: StoreChainView,
    private readonly state: StoreStateView,
  ) {}

  async run<K extends JobKind>(kind: K, params: JobParams<K>, scope: JobScope): Promise<JobResult<K>> {
    if (this.closed) throw new RpcPoolError('RPC_POOL_CLOSED', 'executor is closed');
    const signal = scope.signal;
    const deadline = scope.deadline;
    const interrupt = {
      get aborted(): boolean {
        return (signal?.aborted ?? false) || Date.now() > deadline;
      },
    };
    const ctx: JobContext = {
      reader: this.reader,
      config: this.config,
      interrupt,
      budgetMs: Math.max(1, Math.min(scope.budgetMs ?? deadline - Date.now(), deadline - Date.now())),
      views: {
        exec: (timeoutMs) => new StoreExecutionView(this.reader, this.config, { timeoutMs, hosts: this.hosts }),
        chain: this.chain,
        state: this.state,
        trace: (options) => new StoreTraceView(this.reader, this.chain, this.config, { ...options, hosts: this.hosts }),
        simulate: (options) => new StoreSimulateView(this.reader, this.config, { ...options, hosts: this.hosts }),
      },
    };
    const job = POOL_JOBS[kind] as (p: JobParams<K>, c: JobContext) => JobResult<K> | Promise<JobResult<K>>;
    // No read transaction here: the caller's connection is shared with its other reads, so a job reads the latest
    // commit at each statement (the pool's workers give each job one snapshot).
    return job(params, ctx);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
