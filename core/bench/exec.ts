/**
 * `npm run bench:exec`: block import throughput with a durable store (issue #4). Builds full 30 M gas blocks in
 * memory first (not timed), then times their import through the real pipeline (recovery, execution, state root,
 * commit with fsync): (1) value transfers, 1,428 per block from many senders, with and without the fast path;
 * (2) ERC-20 transfers of a token compiled with npm solc at bench time. Prints one JSON document on stdout and a
 * one-line summary on stderr. Options: `--quick` (fewer blocks), `--dir PATH` (where datadirs go; default the OS
 * temp dir, whose filesystem is recorded), `--only erc20` (just the ERC-20 workload, imported `--reps N` times on
 * fresh datadirs; each import is reported, for A/B runs of the EVM path), `--fork NAME` (shanghai by default; cancun,
 * prague or osaka from genesis, to compare a workload across forks), `--only compute` (compute-heavy programs
 * shaped after vmPerformance and stTimeConsuming, ours against @ethereumjs/evm's own loop in the same run, Mgas/s;
 * `--rounds N`, `--scale X` sizes them, `--programs a,b` picks some; exec/compute.ts).
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { TIME_FORKS } from '../chain/forks.ts';
import { benchConfig, buildChain } from './exec/buildChain.ts';
import { importChain } from './exec/importChain.ts';
import { erc20Workload, transferWorkload } from './exec/workloads.ts';
import { benchCompute } from './exec/compute.ts';
import { defaultRecoveryWorkers, RecoveryPool } from '../runtime/recovery/index.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const dirIndex = args.indexOf('--dir');
const baseDir = dirIndex >= 0 ? (args[dirIndex + 1] as string) : tmpdir();
const onlyIndex = args.indexOf('--only');
const only = onlyIndex >= 0 ? args[onlyIndex + 1] : undefined;
const repsIndex = args.indexOf('--reps');
const reps = repsIndex >= 0 ? Number(args[repsIndex + 1]) : 1;
const load = (): number[] => loadavg().map((x) => Number(x.toFixed(2)));
const forkIndex = args.indexOf('--fork');
const forkArg = forkIndex >= 0 ? (args[forkIndex + 1] as string) : 'shanghai';
const fork = TIME_FORKS.find((f) => f.toLowerCase() === forkArg.toLowerCase() && f !== 'BPO1' && f !== 'BPO2');
if (fork === undefined) throw new Error(`--fork ${forkArg}: one of shanghai, cancun, prague, osaka`);

/** Peers' figures quoted by the issue (not run here except where stated). */
const ANCHORS = {
  gethXdcTxPerSec: 12_521,
  pythonTxPerSec: [1_833, 2_057],
  pythonMsPerContractTx: [61, 63],
  anvil20kPreRecoveredSec: 0.94,
  targetTxPerSec: 12_521,
  targetMsPerErc20Tx: 0.2,
};

function filesystem(dir: string): string {
  try {
    return execFileSync('findmnt', ['-n', '-o', 'TARGET,SOURCE,FSTYPE,OPTIONS', '-T', dir], { encoding: 'utf8' }).trim();
  } catch (err) {
    return `findmnt failed: ${(err as Error).message}`;
  }
}

const chainId = 2040n;
const config = benchConfig(chainId, fork);
const loadStart = load();
const buildStart = performance.now();

if (only === 'compute') {
  const arg = (name: string): string | undefined => (args.indexOf(name) >= 0 ? args[args.indexOf(name) + 1] : undefined);
  const rounds = Number(arg('--rounds') ?? (quick ? 1 : 3));
  const scale = Number(arg('--scale') ?? (quick ? 0.2 : 1));
  const programs = await benchCompute({ rounds, scale, only: arg('--programs')?.split(',') });
  const report = {
    bench: 'exec',
    fork,
    only: 'compute',
    date: new Date().toISOString(),
    host: { cores: availableParallelism(), cpu: cpus()[0]?.model, node: process.version, loadavgStart: loadStart, loadavgEnd: load() },
    peer: "@ethereumjs/evm's own interpreter loop (EvmHost libraryLoop), same process, alternating rounds",
    rounds,
    scale,
    programs,
  };
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  process.stderr.write(
    `exec (compute): ${programs.map((p) => `${p.name} ${p.fast.mgasPerSec} Mgas/s wall, ${p.fast.cpuMgasPerSec} per CPU-s (library ${p.library.mgasPerSec} / ${p.library.cpuMgasPerSec}, x${p.speedup})`).join('; ')} (load ${loadStart.join(' ')} -> ${load().join(' ')})\n`,
  );
  process.exit(0);
}

if (only === 'erc20') {
  const work = erc20Workload(chainId, quick ? 1 : 4);
  const built = await buildChain(config, work.alloc, work.blocks);
  const runs = [];
  for (let i = 0; i < reps; i++) {
    const f = await importChain(baseDir, config, work.alloc, built);
    runs.push({
      ...f,
      executeCpuMsPerTx: Number((f.cpuSplit.executeMs / f.txs).toFixed(4)),
      executeMsPerTx: Number((f.split.executeMs / f.txs).toFixed(4)),
    });
  }
  const report = {
    bench: 'exec',
    fork,
    only: 'erc20',
    date: new Date().toISOString(),
    host: { cores: availableParallelism(), cpu: cpus()[0]?.model, node: process.version, loadavgStart: loadStart, loadavgEnd: load() },
    filesystem: filesystem(baseDir),
    erc20: { perBlock: 560, solc: work.solcVersion, runs },
    anchors: { targetMsPerErc20Tx: ANCHORS.targetMsPerErc20Tx },
  };
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  process.stderr.write(
    `exec (erc20 only): ${runs.map((r) => `${r.msPerTx} ms/tx, execute ${r.executeMsPerTx} ms wall / ${r.executeCpuMsPerTx} ms CPU per tx`).join('; ')} (load ${loadStart.join(' ')})\n`,
  );
  process.exit(0);
}

const transfers = transferWorkload(chainId, quick ? 3 : 10);
const transferChain = await buildChain(config, transfers.alloc, transfers.blocks);
const evmPathBlocks = quick ? 1 : 3;
const erc20 = erc20Workload(chainId, quick ? 1 : 4);
const erc20Chain = await buildChain(config, erc20.alloc, erc20.blocks);
const buildSeconds = (performance.now() - buildStart) / 1000;

const pool = new RecoveryPool({ workers: defaultRecoveryWorkers() });
await pool.init();
const transferFigures = await importChain(baseDir, config, transfers.alloc, transferChain);
const transferPooled = await importChain(baseDir, config, transfers.alloc, transferChain, { recovery: pool });
await pool.close();
const evmPathChain = {
  ...transferChain,
  blocks: transferChain.blocks.slice(0, evmPathBlocks),
  txs: evmPathBlocks * 1428,
  gas: BigInt(evmPathBlocks * 1428 * 21000),
};
const transferEvmPath = await importChain(baseDir, config, transfers.alloc, evmPathChain, { fastPath: false });
const erc20Figures = await importChain(baseDir, config, erc20.alloc, erc20Chain);

const anvilTxPerSec = Math.round(20_000 / ANCHORS.anvil20kPreRecoveredSec);
const report = {
  bench: 'exec',
  fork,
  date: new Date().toISOString(),
  host: { cores: availableParallelism(), cpu: cpus()[0]?.model, node: process.version, loadavgStart: loadStart, loadavgEnd: load() },
  filesystem: filesystem(baseDir),
  store: { mode: 'follower group commit (batch 128), synchronous=FULL, WAL' },
  buildSeconds: Number(buildSeconds.toFixed(1)),
  transfers: { perBlock: 1428, recovery: 'in-thread, before each block', ...transferFigures },
  transfersPipelinedRecovery: {
    perBlock: 1428,
    recovery: `pool of ${defaultRecoveryWorkers()} worker(s), next block recovered while this one executes`,
    ...transferPooled,
  },
  transfersWithoutFastPath: { perBlock: 1428, ...transferEvmPath },
  erc20: { perBlock: 560, solc: erc20.solcVersion, ...erc20Figures },
  anchors: ANCHORS,
  ratios: {
    transfersVsGethXdc: Number((transferFigures.txPerSec / ANCHORS.gethXdcTxPerSec).toFixed(3)),
    transfersPipelinedVsGethXdc: Number((transferPooled.txPerSec / ANCHORS.gethXdcTxPerSec).toFixed(3)),
    transfersVsAnvilQuoted: Number((transferFigures.txPerSec / anvilTxPerSec).toFixed(3)),
    erc20MsVsTarget: Number((erc20Figures.msPerTx / ANCHORS.targetMsPerErc20Tx).toFixed(2)),
    erc20MsVsPython: Number((erc20Figures.msPerTx / ANCHORS.pythonMsPerContractTx[0]!).toFixed(4)),
  },
};
process.stdout.write(JSON.stringify(report, null, 2) + '\n');
const t = transferFigures;
process.stderr.write(
  `exec: transfers ${t.txPerSec} tx/s (${t.mgasPerSec} Mgas/s; split recover ${t.split.recoverMs} / execute ${t.split.executeMs} / root ${t.split.rootMs} / commit ${t.split.commitMs + t.split.finalSyncMs} ms for ${t.txs} txs), ` +
    `with pipelined recovery pool ${transferPooled.txPerSec} tx/s; without fast path ${transferEvmPath.txPerSec} tx/s; ERC-20 ${erc20Figures.msPerTx} ms/tx (${erc20Figures.mgasPerSec} Mgas/s); ` +
    `vs geth-XDC ${report.ratios.transfersVsGethXdc}x (load ${loadStart.join(' ')})\n`,
);
