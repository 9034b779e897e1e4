import { describe, expect, it } from 'vitest';
import { createMetrics, METRIC_DEFINITIONS } from '../../core/metrics/index.ts';

const EXPECTED = [
  'xone_head_number',
  'xone_loop_lag_ms',
  'xone_loop_lag_seconds',
  'xone_import_blocks_total',
  'xone_import_txs_total',
  'xone_import_gas_total',
  'xone_produce_blocks_total',
  'xone_produce_txs_total',
  'xone_produce_gas_total',
  'xone_store_commit_seconds',
  'xone_store_batch_size',
  'xone_store_durable',
  'xone_store_degraded_seconds',
  'xone_recovery_queue_length',
  'xone_recovery_seconds',
  'xone_txpool_pending',
  'xone_txpool_queued',
  'xone_peers',
  'xone_sync_lag_blocks',
  'xone_chain_reorgs_total',
  'xone_chain_reorg_depth_blocks',
  'xone_rpc_pool_busy_workers',
  'xone_rpc_pool_interrupted_total',
  'xone_rpc_pool_job_seconds',
  'xone_rpc_pool_jobs_total',
  'xone_rpc_pool_queued',
  'xone_rpc_pool_ready_workers',
  'xone_rpc_pool_refused_total',
  'xone_rpc_pool_wait_seconds',
  'xone_rpc_pool_worker_restarts_total',
];

describe('createMetrics', () => {
  it('default: every declared metric and the xone_ process metrics are exposed', async () => {
    const m = createMetrics();
    const text = await m.register.metrics();
    for (const name of EXPECTED) expect(text).toContain(`# TYPE ${name} `);
    expect(
      Object.values(METRIC_DEFINITIONS)
        .map((d) => d.name)
        .sort(),
    ).toEqual([...EXPECTED].sort());
    expect(text).toContain('xone_process_resident_memory_bytes');
    expect(text).toContain('xone_nodejs_eventloop_lag_seconds');
  });

  it('behavior: two factories in one process do not share state', async () => {
    const a = createMetrics({ processMetrics: false });
    const b = createMetrics({ processMetrics: false });
    a.headNumber.set(42);
    a.importBlocks.inc(3);
    a.recoverySeconds.observe(0.02);
    b.headNumber.set(7);
    const ta = await a.register.metrics();
    const tb = await b.register.metrics();
    expect(ta).toMatch(/^xone_head_number 42$/m);
    expect(ta).toMatch(/^xone_import_blocks_total 3$/m);
    expect(ta).toMatch(/^xone_recovery_seconds_count 1$/m);
    expect(tb).toMatch(/^xone_head_number 7$/m);
    expect(tb).toMatch(/^xone_import_blocks_total 0$/m);
  });

  it('args: defaultLabels are attached to every series', async () => {
    const m = createMetrics({ processMetrics: false, defaultLabels: { instance: 'f1' } });
    m.peers.set(2);
    expect(await m.register.metrics()).toContain('xone_peers{instance="f1"} 2');
  });
});
