/**
 * Developer probe (not a bench:* script): imports N full transfer blocks and prints the CPU split; with `--prof FILE`
 * it writes a V8 CPU profile of the import alone (the chain build is not profiled).
 * `node bin/run-ts.mjs core/bench/exec/profileTransfers.ts [blocks] [--prof FILE]`.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { benchConfig, buildChain } from './buildChain.ts';
import { importChain } from './importChain.ts';
import { transferWorkload } from './workloads.ts';

const blocks = Number(process.argv[2] ?? 3);
const profIndex = process.argv.indexOf('--prof');
const profFile = profIndex >= 0 ? process.argv[profIndex + 1] : undefined;
const config = benchConfig(2040n);
const w = transferWorkload(2040n, blocks);
const chain = await buildChain(config, w.alloc, w.blocks);
const session = new Session();
if (profFile !== undefined) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
}
const f = await importChain(tmpdir(), config, w.alloc, chain);
if (profFile !== undefined) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(profFile, JSON.stringify(profile));
}
process.stdout.write(JSON.stringify({ cpuSplit: f.cpuSplit, split: f.split, txPerCpuSec: f.txPerCpuSec, cpuSeconds: f.cpuSeconds }) + '\n');
