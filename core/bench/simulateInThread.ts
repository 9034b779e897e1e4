/**
 * The pool worker's eth_simulateV1 and callTracer jobs run in this thread (issue #15), so `--cpu-prof` sees them
 * whole: a dev node (`xone run --dev`) gets Tracee and a many(200) transaction, then this process opens its datadir
 * read-only, as a pool worker does, and times the jobs bench:rpc's devtools phase sends. Prints JSON (p50 per job).
 * `--runs N` (default 50), `--warmup N` untimed runs first (default 5; bench:rpc's `--quick` tracing phase is 1 then 5),
 * `--pool-warm N`: first N steps of the pool worker's own warm-up (core/rpcPool/warmUp.ts), as a pool thread runs
 * them before its first job (with `--warmup 0 --each`: what the warm-up leaves for a user's first requests),
 * `--each` (every timed run's CPU, in order), `--calls N` per simulated block (default 10), `--only simulate|callTracer`, `--no-pool`:
 * without the thread's idle EVMs (a new EVM per job, as before core/exec/evmHostPool.ts). Under `node --cpu-prof` the timed runs' window goes to
 * stderr (monotonic µs, the profile's clock), so the profile can be cut to them.
 */
import { readFileSync } from 'node:fs';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { ethereumHeaderCodec } from '../chain/header/index.ts';
import { parseGenesis } from '../chain/genesis/parseGenesis.ts';
import { devAccounts, devGenesisJson } from '../node/dev/devChain.ts';
import { decodeRlp } from '../primitives/rlp.ts';
import { hexToBytes } from '../primitives/hex.ts';
import { simulatePayload } from '../rpc/simulateParams.ts';
import { StoreChainView } from '../rpcBackend/chainView.ts';
import { headerData } from '../rpcBackend/convert.ts';
import { StoreSimulateView } from '../rpcBackend/simulateView.ts';
import { StoreTraceView } from '../rpcBackend/traceView.ts';
import { StoreExecutionView } from '../rpcBackend/execView.ts';
import { StoreStateView } from '../rpcBackend/stateView.ts';
import { warmUpTracingOnce } from '../rpcPool/warmUp.ts';
import { EvmHostPool } from '../exec/evmHostPool.ts';
import { openReadOnly } from '../store/index.ts';
import { must, percentile, round3 } from './rpc/client.ts';
import { DEV0, minedFromDev0 } from './rpc/devSend.ts';
import { startOurs } from './rpc/peers.ts';
import { compileTraceContracts } from './rpc/traceContracts.ts';

const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 50;
const callsAt = process.argv.indexOf('--calls');
const CALLS = callsAt > 0 ? Number(process.argv[callsAt + 1]) : 10;
const warmupAt = process.argv.indexOf('--warmup');
const WARMUP = warmupAt > 0 ? Number(process.argv[warmupAt + 1]) : 5;

/** This thread's CPU time (ms): the first field of its schedstat (Linux), so a loaded host's waits do not count. */
const cpuMs = (): number => {
  const text = readFileSync('/proc/thread-self/schedstat', 'latin1');
  return Number(text.slice(0, text.indexOf(' '))) / 1e6;
};

const node = await startOurs();
try {
  const { Tracee } = compileTraceContracts();
  const abi = Tracee.abi as Abi;
  const mined = (tx: Record<string, unknown>) => minedFromDev0(node.url, tx);
  await must(node.url, 'evm_setAutomine', [true]);
  const tracee = (await mined({ data: encodeDeployData({ abi, bytecode: Tracee.bytecode }), gas: '0x2dc6c0' })).contractAddress;
  const many = await mined({ to: tracee, data: encodeFunctionData({ abi, functionName: 'many', args: [200n] }), gas: '0xf42400' });

  const config = parseGenesis(devGenesisJson(devAccounts(), 2, undefined, 'Osaka')).config;
  const reader = openReadOnly(node.datadir as string, { readDeadlineMs: 10_000 });
  const head = () => {
    const h = reader.getHead();
    const row = h && reader.getHeaderByHash(h.hash);
    if (!row) throw new Error('no head');
    return { header: ethereumHeaderCodec.decode(decodeRlp(row.headerRlp), row.headerRlp), hash: row.hash };
  };
  const chain = new StoreChainView(reader, config, head);
  const hosts = process.argv.includes('--no-pool') ? undefined : new EvmHostPool();
  const h = head();
  const at = headerData(h.header, h.hash);
  const payload = simulatePayload({
    blockStateCalls: [
      {
        calls: Array.from({ length: CALLS }, (_, i) => ({
          from: DEV0,
          to: tracee,
          data: encodeFunctionData({ abi, functionName: 'nested', args: [BigInt(i)] }),
        })),
      },
    ],
  });
  const jobs: Record<string, () => Promise<unknown>> = {
    simulate: () =>
      reader.readSnapshot(() =>
        new StoreSimulateView(reader, config, { gasCap: 50_000_000n, timeoutMs: 5_000, ...(hosts ? { hosts } : {}) }).simulate(payload, at),
      ),
    callTracer: () =>
      reader.readSnapshot(() =>
        new StoreTraceView(reader, chain, config, {
          maxBytes: 25_000_000,
          gasCap: 50_000_000n,
          ...(hosts ? { hosts } : {}),
        }).traceTransaction(hexToBytes(many.transactionHash), {
          tracer: 'callTracer',
          timeoutMs: 5_000,
          logger: {},
        }),
      ),
  };
  const poolWarmAt = process.argv.indexOf('--pool-warm');
  const poolWarm = poolWarmAt > 0 ? Number(process.argv[poolWarmAt + 1]) : 0;
  if (poolWarm > 0) {
    const views = {
      exec: (timeoutMs: number) => new StoreExecutionView(reader, config, { timeoutMs, ...(hosts ? { hosts } : {}) }),
      chain,
      state: new StoreStateView(reader),
      trace: (o: ConstructorParameters<typeof StoreTraceView>[3]) =>
        new StoreTraceView(reader, chain, config, { ...o, ...(hosts ? { hosts } : {}) }),
      simulate: (o: ConstructorParameters<typeof StoreSimulateView>[2]) =>
        new StoreSimulateView(reader, config, { ...o, ...(hosts ? { hosts } : {}) }),
    };
    const ctx = { reader, config, interrupt: { aborted: false }, budgetMs: 5_000, views };
    const c = cpuMs();
    for (let i = 0; i < poolWarm; i++) await reader.readSnapshot(() => warmUpTracingOnce(ctx, at));
    process.stderr.write(`pool warm-up: ${poolWarm} steps, ${(cpuMs() - c).toFixed(1)} ms of this thread's CPU\n`);
  }
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
  const out: Record<string, { p50Ms: number; minMs: number; cpuP50Ms: number; cpuMs?: number[] }> = {};
  for (const [name, job] of Object.entries(jobs)) {
    if (only !== undefined && only !== name) continue;
    for (let i = 0; i < WARMUP; i++) await job();
    const from = process.hrtime.bigint() / 1000n;
    const t: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      const c = cpuMs();
      await job();
      cpu.push(cpuMs() - c);
      t.push(performance.now() - s);
    }
    process.stderr.write(`${name} window ${from} ${process.hrtime.bigint() / 1000n}\n`);
    const inOrder = cpu.map((c) => Math.round(c * 10) / 10);
    t.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    out[name] = { p50Ms: round3(percentile(t, 50)), minMs: round3(t[0]), cpuP50Ms: round3(percentile(cpu, 50)) };
    if (process.argv.includes('--each')) out[name].cpuMs = inOrder;
  }
  reader.close();
  process.stdout.write(JSON.stringify({ runs: RUNS, ...out }) + '\n');
} finally {
  await node.stop();
}
