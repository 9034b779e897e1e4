/**
 * The pool worker's tracing warm-up (core/rpcPool/warmUp.ts) over a real datadir: its program runs the frame kinds
 * it means to warm (a step that failed would warm nothing, silently), and every step succeeds at the stored head.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvmHostPool } from '../../core/exec/evmHostPool.ts';
import { StoreChainView } from '../../core/rpcBackend/chainView.ts';
import { StoreExecutionView } from '../../core/rpcBackend/execView.ts';
import { StoreSimulateView } from '../../core/rpcBackend/simulateView.ts';
import { StoreStateView } from '../../core/rpcBackend/stateView.ts';
import { StoreTraceView } from '../../core/rpcBackend/traceView.ts';
import type { JobContext } from '../../core/rpcPool/jobs.ts';
import { tracingWarmUp, warmUpTracingOnce, WARM_UP_PROGRAM } from '../../core/rpcPool/warmUp.ts';
import { openReadOnly } from '../../core/store/index.ts';
import { makeChainDir, type ChainDir } from './support/chainDir.ts';

let dir: ChainDir;
let reader: ReturnType<typeof openReadOnly>;
let ctx: JobContext;

beforeAll(async () => {
  dir = await makeChainDir('rpcpool-warm');
  reader = openReadOnly(dir.datadir, { readDeadlineMs: 10_000 });
  const config = dir.genesis.config;
  const hosts = new EvmHostPool();
  const chain = new StoreChainView(reader, config, () => {
    throw new Error('the warm-up names its block');
  });
  ctx = {
    reader,
    config,
    interrupt: { aborted: false },
    budgetMs: 5_000,
    views: {
      exec: (timeoutMs) => new StoreExecutionView(reader, config, { timeoutMs, hosts }),
      chain,
      state: new StoreStateView(reader),
      trace: (options) => new StoreTraceView(reader, chain, config, { ...options, hosts }),
      simulate: (options) => new StoreSimulateView(reader, config, { ...options, hosts }),
    },
  };
});
afterAll(() => {
  reader?.close();
  rmSync(dir.datadir, { recursive: true, force: true });
});

interface Frame {
  type: string;
  to: string;
  error?: string;
  calls?: Frame[];
}

describe('rpc pool tracing warm-up', { timeout: 60_000 }, () => {
  it('behavior: the program makes every kind of frame: a call with value, a revert, a static write, a delegatecall, a precompile', async () => {
    const { trace, simulation } = await warmUpTracingOnce(ctx, dir.head);
    const top = JSON.parse(trace) as Frame;
    expect(top.to).toBe(WARM_UP_PROGRAM.loop);
    expect(top.error).toBeUndefined();
    const calls = top.calls ?? [];
    expect(calls).toHaveLength(5 * WARM_UP_PROGRAM.traceRounds);
    expect(calls.slice(0, 5).map((c) => [c.type, c.to, c.error])).toEqual([
      ['CALL', WARM_UP_PROGRAM.child, undefined],
      ['CALL', WARM_UP_PROGRAM.child, 'execution reverted'],
      ['STATICCALL', WARM_UP_PROGRAM.child, 'write protection'],
      ['DELEGATECALL', WARM_UP_PROGRAM.child, undefined],
      ['STATICCALL', '0x0000000000000000000000000000000000000002', undefined],
    ]);
    const [block] = JSON.parse(simulation) as { calls: { status: string; logs: unknown[] }[] }[];
    expect(block.calls).toHaveLength(WARM_UP_PROGRAM.simulateCalls);
    // Each call's round: the CALL's and the DELEGATECALL's logs.
    for (const c of block.calls) expect([c.status, c.logs.length]).toEqual(['0x1', 2]);
  });

  it('default: every step succeeds at the stored head', async () => {
    const steps = tracingWarmUp(ctx);
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) expect(await step()).toBe(true);
  });
});
