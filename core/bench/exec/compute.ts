/**
 * `bench:exec --only compute` (issue #18): the compute programs of computePrograms.ts run as one message each on
 * our EVM (the fast interpreter, decision 0027) and on @ethereumjs/evm's own loop, in the same process, alternating
 * per round so load drift hits both alike; the peer keeps the library's own BLAKE2F precompile as well. Both run over
 * the same in-memory state; both must return the same word and use the same gas, or the run fails.
 */
import { getActivePrecompiles } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { blake2fMemo } from '../../exec/evm/blake2fPrecompile.ts';
import { EvmHost } from '../../exec/evmHost.ts';
import { commonFor } from '../../exec/hardfork.ts';
import type { BlockEnv } from '../../exec/types.ts';
import { EMPTY_ACCOUNT } from '../../state/account.ts';
import { JournaledState } from '../../state/journaledState.ts';
import { MemoryState } from '../../state/memoryState.ts';
import { computePrograms, type ComputeProgram } from './computePrograms.ts';

const CONTRACT = Uint8Array.from(Buffer.from('10'.padEnd(40, '0'), 'hex'));
const SENDER = Uint8Array.from(Buffer.from('a94f5374fce5edbc8e2a8697c15331677e6ebf0b', 'hex'));

const ENV: BlockEnv = {
  chainId: 1337n,
  fork: 'Shanghai',
  number: 1n,
  timestamp: 1_700_000_000n,
  coinbase: new Uint8Array(20),
  gasLimit: 10n ** 12n,
  difficulty: 0n,
  prevRandao: new Uint8Array(32),
  baseFee: 7n,
  blockHash: () => undefined,
};

export interface Run {
  ms: number;
  cpuMs: number;
  gas: bigint;
  result: string;
}

/** One message of `program` on `host` over fresh in-memory state; throws on an exceptional halt. */
export async function runOnce(host: EvmHost, program: ComputeProgram): Promise<Run> {
  // The bench measures F: a repeat must not be answered by the memo of heavy BLAKE2F results (decision 0046).
  blake2fMemo.clear();
  const state = new JournaledState(new MemoryState());
  state.putAccount(SENDER, { ...EMPTY_ACCOUNT, balance: 10n ** 30n });
  state.putCode(CONTRACT, program.code);
  const block = host.bind(state, ENV);
  await host.evm.journal.cleanup();
  const caller = new Address(SENDER);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await host.evm.runCall({
    block: block as Parameters<EvmHost['evm']['runCall']>[0]['block'],
    caller,
    origin: caller,
    to: new Address(CONTRACT),
    data: program.data,
    gasLimit: program.gasLimit,
    gasPrice: 7n,
  });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const e = r.execResult;
  if (e.exceptionError) throw new Error(`${program.name}: ${e.exceptionError.error}`);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, gas: e.executionGasUsed, result: Buffer.from(e.returnValue).toString('hex') };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const r2 = (x: number): number => Math.round(x * 100) / 100;

/** One interpreter's figures: wall and CPU (this thread's process) medians; Mgas/s from each. */
export interface Side {
  msP50: number;
  cpuMsP50: number;
  mgasPerSec: number;
  /** Gas over CPU time: what a loaded host's wall clock hides. */
  cpuMgasPerSec: number;
  samplesMs: number[];
}

/** Per program: median ms and Mgas/s on both interpreters, and their ratio. */
export interface ComputeFigure {
  name: string;
  shape: string;
  gas: number;
  fast: Side;
  library: Side;
  /** library time / ours (> 1: ours is faster). */
  speedup: number;
}

/** Runs every program `rounds` times on each interpreter, alternating. `only`: names containing one of these. */
export async function benchCompute(opts: { rounds: number; scale: number; only?: string[] }): Promise<ComputeFigure[]> {
  const programs = computePrograms(opts.scale).filter((p) => !opts.only?.length || opts.only.some((o) => p.name.includes(o)));
  const seed = new JournaledState(new MemoryState());
  const fastHost = new EvmHost(1337n, 'Shanghai', seed);
  const libHost = new EvmHost(1337n, 'Shanghai', seed, { libraryLoop: true });
  // The peer is the library as shipped: its own BLAKE2F too (EvmHost puts ours at 0x09).
  const b2f = '0000000000000000000000000000000000000009';
  libHost.evm.precompiles.set(b2f, getActivePrecompiles(commonFor(1337n, 'Shanghai')).get(b2f)!);
  const figures: ComputeFigure[] = [];
  for (const p of programs) {
    // Warm-up, one each (JIT, code analysis), also the correctness check.
    const a = await runOnce(fastHost, p);
    const b = await runOnce(libHost, p);
    if (a.gas !== b.gas || a.result !== b.result) throw new Error(`${p.name}: fast ${a.gas}/${a.result} != library ${b.gas}/${b.result}`);
    const fast: Run[] = [];
    const lib: Run[] = [];
    for (let i = 0; i < opts.rounds; i++) {
      if (i % 2 === 0) {
        fast.push(await runOnce(fastHost, p));
        lib.push(await runOnce(libHost, p));
      } else {
        lib.push(await runOnce(libHost, p));
        fast.push(await runOnce(fastHost, p));
      }
    }
    const gas = Number(a.gas);
    const side = (runs: Run[]): Side => {
      const ms = median(runs.map((r) => r.ms));
      const cpuMs = median(runs.map((r) => r.cpuMs));
      return {
        msP50: r2(ms),
        cpuMsP50: r2(cpuMs),
        mgasPerSec: r2(gas / 1000 / ms),
        cpuMgasPerSec: r2(gas / 1000 / cpuMs),
        samplesMs: runs.map((r) => r2(r.ms)),
      };
    };
    const f = side(fast);
    const l = side(lib);
    figures.push({ name: p.name, shape: p.shape, gas, fast: f, library: l, speedup: r2(l.msP50 / f.msP50) });
  }
  return figures;
}
