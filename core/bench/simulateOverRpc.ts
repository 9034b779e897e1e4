/**
 * eth_simulateV1 over RPC (issue #15): a dev node gets Tracee, then bench:rpc's 10-call simulate is sent `--runs N`
 * times; prints each request's wall time and the CPU of every thread of the node (/proc/<pid>/task/TID/schedstat) per
 * request, and the timed window in monotonic µs (run with XONE_BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR' to cut
 * the node's per-thread profiles to it). `--sleep MS` before the first request (default 8000: the pool's warm-up).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { call, must, percentile, warmClient } from './rpc/client.ts';
import { DEV0, minedFromDev0 } from './rpc/devSend.ts';
import { startOurs } from './rpc/peers.ts';
import { compileTraceContracts } from './rpc/traceContracts.ts';

const arg = (n: string, d: number) => (process.argv.includes(n) ? Number(process.argv[process.argv.indexOf(n) + 1]) : d);
const RUNS = arg('--runs', 30);
const threads = (pid: number) => {
  const m = new Map<string, number>();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const comm = readFileSync(`/proc/${pid}/task/${t}/comm`, 'latin1').trim();
      const ns = Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'latin1').split(' ')[0]);
      m.set(`${Number(t) === pid ? 'main' : comm}#${t}`, ns / 1e6);
    } catch {
      // a thread that exited meanwhile
    }
  }
  return m;
};
const node = await startOurs();
try {
  const pid = node.pids()[0];
  const { Tracee } = compileTraceContracts();
  const abi = Tracee.abi as Abi;
  const mined = (tx: Record<string, unknown>) => minedFromDev0(node.url, tx);
  await must(node.url, 'evm_setAutomine', [true]);
  const tracee = (await mined({ data: encodeDeployData({ abi, bytecode: Tracee.bytecode }), gas: '0x2dc6c0' })).contractAddress;
  await warmClient();
  await new Promise((r) => setTimeout(r, arg('--sleep', 8000)));
  const payload = [
    {
      blockStateCalls: [
        {
          calls: Array.from({ length: 10 }, (_, i) => ({
            from: DEV0,
            to: tracee,
            data: encodeFunctionData({ abi, functionName: 'nested', args: [BigInt(i)] }),
          })),
        },
      ],
    },
    'latest',
  ];
  const wall: number[] = [];
  const from = process.hrtime.bigint() / 1000n;
  const per: Record<string, number[]> = {};
  for (let i = 0; i < RUNS; i++) {
    const a = threads(pid);
    const r = await call(node.url, 'eth_simulateV1', payload);
    const b = threads(pid);
    if (r.code !== undefined) throw new Error(`code ${r.code}`);
    wall.push(r.ms);
    for (const [k, v] of b) {
      const name = k;
      (per[name] ??= Array(RUNS).fill(0))[i] += v - (a.get(k) ?? 0);
    }
  }
  console.log('window', String(from), String(process.hrtime.bigint() / 1000n));
  const fmt = (x: number[]) => x.map((v) => v.toFixed(1)).join(' ');
  console.log(
    'wall',
    fmt(wall),
    'p50',
    percentile(
      [...wall].sort((x, y) => x - y),
      50,
    ).toFixed(2),
  );
  for (const [k, v] of Object.entries(per)) if (v.some((x) => x > 0.3)) console.log(k.padEnd(16), fmt(v));
} finally {
  await node.stop();
}
