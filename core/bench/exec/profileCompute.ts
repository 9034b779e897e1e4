/**
 * Developer probe (not a bench:* script): runs one compute program of computePrograms.ts on our EVM only (the fast
 * interpreter), `--reps N` times after one warm-up, prints CPU ms per run and Mgas per CPU-second; with `--prof FILE`
 * it writes a V8 CPU profile of the measured runs (the warm-up is not profiled). For the profiles of issue #18's
 * unmet rows: `node bin/run-ts.mjs core/bench/exec/profileCompute.ts loopExp [--scale X] [--reps N] [--prof FILE]`.
 */
import { EvmHost } from '../../exec/evmHost.ts';
import { JournaledState } from '../../state/journaledState.ts';
import { MemoryState } from '../../state/memoryState.ts';
import { runOnce } from './compute.ts';
import { computePrograms } from './computePrograms.ts';
import { startProfile } from './inProcessProfile.ts';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const name = process.argv[2] ?? 'loopExp';
const program = computePrograms(Number(arg('--scale') ?? 0.2)).find((p) => p.name === name);
if (program === undefined)
  throw new Error(
    `no program ${name}: ${computePrograms(1)
      .map((p) => p.name)
      .join(', ')}`,
  );
const reps = Number(arg('--reps') ?? 3);
const profFile = arg('--prof');
const host = new EvmHost(1337n, 'Shanghai', new JournaledState(new MemoryState()));
await runOnce(host, program);
const stopProfile = await startProfile(profFile);
const cpuMs: number[] = [];
let gas = 0n;
for (let i = 0; i < reps; i++) {
  const r = await runOnce(host, program);
  cpuMs.push(Math.round(r.cpuMs));
  gas = r.gas;
}
await stopProfile();
const best = Math.min(...cpuMs);
process.stdout.write(
  JSON.stringify({ program: name, gas: gas.toString(), cpuMs, cpuMgasPerSec: Math.round(Number(gas) / 1000 / best) }) + '\n',
);
