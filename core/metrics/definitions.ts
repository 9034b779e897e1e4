/**
 * Every xOne core metric, declared in one place with a doc line each (reth's tables style). Names follow
 * `xone_<area>_<what>_<unit>` with seconds for time; `xone_loop_lag_ms` keeps the seeds' name. The components update
 * them; docs/metrics.md is the reference page.
 */

/** Latency buckets in seconds, 0.5 ms to 10 s: commits, recovery batches, loop lag. */
const SECONDS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Block counts per committed batch (1 for a producer, up to 128 for a follower). */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

interface Def<K extends 'gauge' | 'counter' | 'histogram'> {
  kind: K;
  name: string;
  help: string;
  buckets?: number[];
}

const gauge = (name: string, help: string): Def<'gauge'> => ({ kind: 'gauge', name, help });
const counter = (name: string, help: string): Def<'counter'> => ({ kind: 'counter', name, help });
const histogram = (name: string, help: string, buckets: number[]): Def<'histogram'> => ({ kind: 'histogram', name, help, buckets });

/** The declarations; the key is the property name on `XoneMetrics`. */
export const METRIC_DEFINITIONS = {
  /** Number of the canonical head block. */
  headNumber: gauge('xone_head_number', 'Number of the canonical head block'),
  /** How late the 50 ms loop-lag probe woke, last sample (the seeds' gauge). */
  loopLagMs: gauge('xone_loop_lag_ms', 'How late the main event loop probe woke last time, in milliseconds'),
  /** Distribution of the probe's lateness. */
  loopLagSeconds: histogram('xone_loop_lag_seconds', 'How late the main event loop probe woke, in seconds', SECONDS_BUCKETS),
  /** Blocks imported from peers (or a file) and committed. */
  importBlocks: counter('xone_import_blocks_total', 'Blocks imported and committed'),
  /** Transactions in imported blocks. */
  importTxs: counter('xone_import_txs_total', 'Transactions in imported blocks'),
  /** Gas used by imported blocks. */
  importGas: counter('xone_import_gas_total', 'Gas used by imported blocks'),
  /** Reorgs: the canonical head moved to another branch (fork choice), committed durably. */
  reorgs: counter('xone_chain_reorgs_total', 'Reorgs: the canonical head moved to another branch'),
  /** Blocks each reorg took off the canonical chain. */
  reorgDepth: histogram('xone_chain_reorg_depth_blocks', 'Blocks a reorg took off the canonical chain', BATCH_BUCKETS),
  /** Blocks this node sealed and committed. */
  produceBlocks: counter('xone_produce_blocks_total', 'Blocks produced (sealed and committed) by this node'),
  /** Transactions in blocks this node sealed. */
  produceTxs: counter('xone_produce_txs_total', 'Transactions in blocks produced by this node'),
  /** Gas used by blocks this node sealed. */
  produceGas: counter('xone_produce_gas_total', 'Gas used by blocks produced by this node'),
  /** Time to commit one batch durably (write transaction plus fsync). */
  storeCommitSeconds: histogram('xone_store_commit_seconds', 'Time to commit one batch durably, in seconds', SECONDS_BUCKETS),
  /** Blocks per committed batch. */
  storeBatchSize: histogram('xone_store_batch_size', 'Blocks per committed batch', BATCH_BUCKETS),
  /** 1 while the store is Durable, 0 while Degraded. */
  storeDurable: gauge('xone_store_durable', '1 while the store is Durable, 0 while Degraded'),
  /** Seconds the store has been Degraded in the current spell (0 while Durable). */
  storeDegradedSeconds: gauge('xone_store_degraded_seconds', 'Seconds the store has been Degraded in the current spell (0 while Durable)'),
  /** Signatures waiting for or in sender recovery. */
  recoveryQueueLength: gauge('xone_recovery_queue_length', 'Signatures waiting for or in sender recovery'),
  /** Time to recover the senders of one batch. */
  recoverySeconds: histogram('xone_recovery_seconds', 'Time to recover the senders of one batch, in seconds', SECONDS_BUCKETS),
  /** Executable transactions in the pool. */
  txpoolPending: gauge('xone_txpool_pending', 'Executable transactions in the pool'),
  /** Transactions in the pool waiting for a nonce gap to close. */
  txpoolQueued: gauge('xone_txpool_queued', 'Transactions in the pool waiting for a nonce gap'),
  /** Sync peers currently connected. */
  peers: gauge('xone_peers', 'Sync peers currently connected'),
  /** RPC execution pool: jobs waiting for a worker. */
  rpcPoolQueued: gauge('xone_rpc_pool_queued', 'RPC execution pool: jobs waiting for a worker'),
  /** RPC execution pool: workers running a job. */
  rpcPoolBusy: gauge('xone_rpc_pool_busy_workers', 'RPC execution pool: workers running a job'),
  /** RPC execution pool: worker threads started and ready for a job (busy or idle); threads start on demand. */
  rpcPoolReady: gauge('xone_rpc_pool_ready_workers', 'RPC execution pool: worker threads ready for a job (busy or idle)'),
  /** RPC execution pool: jobs a worker finished (with a result or an error). */
  rpcPoolJobs: counter('xone_rpc_pool_jobs_total', 'RPC execution pool: jobs finished by a worker'),
  /** RPC execution pool: calls refused at once (-32005) because the client's share or the queue was full. */
  rpcPoolRefused: counter('xone_rpc_pool_refused_total', 'RPC execution pool: calls refused because the queue was full'),
  /** RPC execution pool: running jobs interrupted (deadline passed or client gone). */
  rpcPoolInterrupted: counter('xone_rpc_pool_interrupted_total', 'RPC execution pool: running jobs interrupted (deadline or client gone)'),
  /** RPC execution pool: workers started again after a crash or after being terminated for overrunning. */
  rpcPoolWorkerRestarts: counter('xone_rpc_pool_worker_restarts_total', 'RPC execution pool: workers replaced (crashed or overran)'),
  /** RPC execution pool: time a job ran in its worker. */
  rpcPoolJobSeconds: histogram(
    'xone_rpc_pool_job_seconds',
    'RPC execution pool: time a job ran in its worker, in seconds',
    SECONDS_BUCKETS,
  ),
  /** RPC execution pool: time a job waited for a worker. */
  rpcPoolWaitSeconds: histogram(
    'xone_rpc_pool_wait_seconds',
    'RPC execution pool: time a job waited for a worker, in seconds',
    SECONDS_BUCKETS,
  ),
  /** Blocks between the best peer head and our head. */
  syncLagBlocks: gauge('xone_sync_lag_blocks', 'Blocks between the best known peer head and the local head'),
} as const;

export type MetricKey = keyof typeof METRIC_DEFINITIONS;
