/**
 * The pool worker's tracing warm-up (core/rpcPool/warmUp.ts) over a real datadir: its program runs the frame kinds
 * it means to warm (a step that failed would warm nothing, silently), and every step succeeds at the stored head.
 */
import { rmSync } from 'node:fs';
import solc from 'solc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvmHostPool } from '../../core/exec/evmHostPool.ts';
import { StoreChainView } from '../../core/rpcBackend/chainView.ts';
import { StoreExecutionView } from '../../core/rpcBackend/execView.ts';
import { StoreSimulateView } from '../../core/rpcBackend/simulateView.ts';
import { StoreStateView } from '../../core/rpcBackend/stateView.ts';
import { StoreTraceView } from '../../core/rpcBackend/traceView.ts';
import type { JobContext } from '../../core/rpcPool/jobs.ts';
import { tracingWarmUp, warmUpTracingOnce, WARM_UP_PROGRAM } from '../../core/rpcPool/warmUp.ts';
import { DRIVER_CODE, DRIVER_RUN, LEDGER_CODE, WARM_UP_SOLC, WARM_UP_SOURCE } from '../../core/rpcPool/warmUpContracts.ts';
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

  it('behavior: the Solidity program runs whole: the eth_call succeeds, each simulated call logs its Ledger Transfer and Round', async () => {
    const { call, driverSimulation } = await warmUpTracingOnce(ctx, dir.head);
    expect(call.status).toBe('success');
    const [block] = JSON.parse(driverSimulation) as { calls: { status: string; logs: { address: string }[] }[] }[];
    expect(block.calls).toHaveLength(WARM_UP_PROGRAM.simulateCalls);
    for (const c of block.calls)
      expect([c.status, c.logs.map((l) => l.address)]).toEqual(['0x1', [WARM_UP_PROGRAM.ledger, WARM_UP_PROGRAM.driver]]);
  });

  it("behavior: the embedded code is solc's output of the embedded source", () => {
    expect(solc.version()).toContain(WARM_UP_SOLC.version);
    const { version, ...settings } = WARM_UP_SOLC;
    void version;
    const input = {
      language: 'Solidity',
      sources: { 'WarmUp.sol': { content: WARM_UP_SOURCE } },
      settings: { ...settings, outputSelection: { '*': { '*': ['evm.deployedBytecode.object', 'evm.methodIdentifiers'] } } },
    };
    const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
      contracts: Record<
        string,
        Record<string, { evm: { deployedBytecode: { object: string }; methodIdentifiers: Record<string, string> } }>
      >;
    };
    const { Driver, Ledger } = out.contracts['WarmUp.sol'];
    expect(`0x${Driver.evm.deployedBytecode.object}`).toBe(DRIVER_CODE);
    expect(`0x${Ledger.evm.deployedBytecode.object}`).toBe(LEDGER_CODE);
    expect(`0x${Driver.evm.methodIdentifiers['run(uint256)']}`).toBe(DRIVER_RUN);
  });

  it('default: every step succeeds at the stored head', async () => {
    const steps = tracingWarmUp(ctx);
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) expect(await step()).toBe(true);
  });
});
