/**
 * Developer probe (not a bench:* script): imports N full transfer blocks (or with `--erc20`, N full ERC-20 blocks)
 * and prints the CPU split; with `--prof FILE` it writes a V8 CPU profile of the import alone (the chain build is
 * not profiled). `--warm K` imports the chain K times before the profiled import (JIT warm-up).
 * `node bin/run-ts.mjs core/bench/exec/profileTransfers.ts [blocks] [--erc20] [--warm K] [--prof FILE]`.
 */
import { tmpdir } from 'node:os';
import { benchConfig, buildChain } from './buildChain.ts';
import { importChain } from './importChain.ts';
import { erc20Workload, transferWorkload } from './workloads.ts';
import { startProfile } from './inProcessProfile.ts';

const blocks = Number(process.argv[2] ?? 3);
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const profFile = arg('--prof');
const warm = Number(arg('--warm') ?? 0);
const config = benchConfig(2040n);
const w = process.argv.includes('--erc20') ? erc20Workload(2040n, blocks) : transferWorkload(2040n, blocks);
const chain = await buildChain(config, w.alloc, w.blocks);
for (let i = 0; i < warm; i++) await importChain(tmpdir(), config, w.alloc, chain);
const stopProfile = await startProfile(profFile);
const f = await importChain(tmpdir(), config, w.alloc, chain);
await stopProfile();
const perTx = (ms: number): number => Number((ms / chain.txs).toFixed(4));
process.stdout.write(
  JSON.stringify({
    cpuSplit: f.cpuSplit,
    split: f.split,
    txPerCpuSec: f.txPerCpuSec,
    cpuSeconds: f.cpuSeconds,
    executeCpuMsPerTx: perTx(f.cpuSplit.executeMs),
  }) + '\n',
);
