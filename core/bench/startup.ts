/**
 * `npm run bench:startup` (issue #5: "npm start ... is answering RPC within 500 ms of start (anvil: 393 ms here)"):
 * time from spawning a command to its first eth_chainId answer on 127.0.0.1, for
 *   - `npm start` (the embedded dev chain, fresh datadir: genesis is written),
 *   - `node bin/xone.mjs run --dev` on a fresh and on an existing datadir (no npm wrapper; the restart case),
 *   - the same from TypeScript sources through tsx (`XONE_FROM_SOURCE=1`), the path before the bundle,
 *   - anvil as `npx anvil` (npm @foundry-rs/anvil, offline), started the way bench:rpc starts it.
 * Variants run round-robin (one sample of each per round) so load drift hits all alike. Prints one JSON document on
 * stdout (p50/min/max per variant, ratio to anvil, target met) and a one-line summary on stderr.
 * `--runs N` (default 7), `--quick` (3 runs), `--only a,b` (variants whose name contains a or b; anvil always runs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { DEV_ACCOUNT_COUNT, DEV_CHAIN_ID } from '../node/dev/devChain.ts';
import { freePort, timeToFirstAnswer } from './startup/firstAnswer.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const TARGET_MS = 500;
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : process.argv.includes('--quick') ? 3 : 7;
const load = (): number[] => loadavg().map((x) => Number(x.toFixed(2)));
const round1 = (x: number): number => Math.round(x * 10) / 10;

interface Variant {
  name: string;
  /** Command and arguments for a port and a datadir. */
  argv(port: number, datadir: string): [string, string[]];
  /** Keep one datadir across runs (the restart case) instead of a fresh one per run. */
  reuseDatadir?: boolean;
  env?: NodeJS.ProcessEnv;
}

const XONE = join(ROOT, 'bin', 'xone.mjs');
const devArgs = (port: number, datadir: string): string[] => [
  'run',
  '--dev',
  '--datadir',
  datadir,
  '--http.port',
  String(port),
  '--verbosity',
  'warn',
];
const allVariants: Variant[] = [
  { name: 'npm start', argv: (p, d) => ['npm', ['start', '--silent', '--', ...devArgs(p, d).slice(2)]] },
  { name: 'xone run --dev (fresh datadir)', argv: (p, d) => [process.execPath, [XONE, ...devArgs(p, d)]] },
  { name: 'xone run --dev (existing datadir)', argv: (p, d) => [process.execPath, [XONE, ...devArgs(p, d)]], reuseDatadir: true },
  {
    name: 'xone run --dev from sources via tsx (fresh datadir)',
    argv: (p, d) => [process.execPath, [XONE, ...devArgs(p, d)]],
    env: { XONE_FROM_SOURCE: '1' },
  },
  {
    name: 'anvil (npx anvil)',
    argv: (p) => [
      'npx',
      [
        'anvil',
        '--host',
        '127.0.0.1',
        '--port',
        String(p),
        '--chain-id',
        String(DEV_CHAIN_ID),
        '--accounts',
        String(DEV_ACCOUNT_COUNT),
        '--silent',
      ],
    ],
  },
];

const onlyArg = process.argv.indexOf('--only');
const only = onlyArg > 0 ? process.argv[onlyArg + 1].split(',') : undefined;
const variants = allVariants.filter((v) => !only || v.name.startsWith('anvil') || only.some((o) => v.name.includes(o)));

function filesystem(dir: string): string {
  try {
    return execFileSync('findmnt', ['-n', '-o', 'TARGET,SOURCE,FSTYPE,OPTIONS', '-T', dir], { encoding: 'utf8' }).trim();
  } catch (err) {
    return `findmnt failed: ${(err as Error).message}`;
  }
}

function stats(samples: number[]): { p50: number; min: number; max: number; samples: number[] } {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: round1(s[Math.floor((s.length - 1) / 2)]), min: round1(s[0]), max: round1(s[s.length - 1]), samples: samples.map(round1) };
}

async function main(): Promise<void> {
  const base = join(ROOT, '.xone', 'bench-startup');
  mkdirSync(base, { recursive: true });
  const loadBefore = load();
  const samples = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  const blockNumberSamples = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  const cpuSamples = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  const kept = new Map<string, string>();
  for (let round = 0; round < RUNS; round++) {
    for (const v of variants) {
      const datadir = v.reuseDatadir ? (kept.get(v.name) ?? mkdtempSync(join(base, 'dev-'))) : mkdtempSync(join(base, 'dev-'));
      if (v.reuseDatadir && !kept.has(v.name)) {
        kept.set(v.name, datadir);
        // The first start creates the datadir; it is not the restart case being measured.
        const port = await freePort();
        const [cmd, args] = v.argv(port, datadir);
        await withEnv(v.env, () => timeToFirstAnswer(cmd, args, port, ROOT));
      }
      const port = await freePort();
      const [cmd, args] = v.argv(port, datadir);
      const s = await withEnv(v.env, () => timeToFirstAnswer(cmd, args, port, ROOT));
      if (s.chainId !== '0x' + DEV_CHAIN_ID.toString(16)) throw new Error(`${v.name} answered chain id ${s.chainId}`);
      samples.get(v.name)!.push(s.ms);
      blockNumberSamples.get(v.name)!.push(s.blockNumberMs);
      if (s.cpuMs !== undefined) cpuSamples.get(v.name)!.push(s.cpuMs);
      if (!v.reuseDatadir) rmSync(datadir, { recursive: true, force: true });
    }
  }
  for (const d of kept.values()) rmSync(d, { recursive: true, force: true });

  const results = Object.fromEntries([...samples].map(([name, ms]) => [name, stats(ms)]));
  const firstBlockNumber = Object.fromEntries([...blockNumberSamples].map(([name, ms]) => [name, stats(ms)]));
  const cpuAtFirstAnswer = Object.fromEntries([...cpuSamples].filter(([, ms]) => ms.length > 0).map(([name, ms]) => [name, stats(ms)]));
  const anvil = results['anvil (npx anvil)'];
  const npmStart = results['npm start'] ?? Object.values(results)[0];
  const anvilVersion = (
    JSON.parse(readFileSync(join(ROOT, 'node_modules', '@foundry-rs', 'anvil', 'package.json'), 'utf8')) as { version: string }
  ).version;
  const out = {
    bench: 'startup',
    metric: 'ms from spawn to the first eth_chainId answer on 127.0.0.1 (polled every 5 ms)',
    runs: RUNS,
    build: existsSync(join(ROOT, 'dist', 'xone.mjs')) ? 'dist/ bundle (npm prepare)' : 'no dist/: tsx from sources',
    results,
    /** The same starts, timed to the first eth_blockNumber answer (asked right after eth_chainId answered). */
    firstBlockNumber,
    /** CPU ms (user + system, all threads) of the spawned process when eth_chainId answered (the process itself; npm/npx: the wrapper). */
    cpuAtFirstAnswer,
    ratios: Object.fromEntries(Object.entries(results).map(([name, r]) => [name, Math.round((r.p50 / anvil.p50) * 100) / 100])),
    target: { npmStartP50Ms: TARGET_MS, met: npmStart.p50 <= TARGET_MS },
    peer: `anvil ${anvilVersion} via npx (npm @foundry-rs/anvil)`,
    env: {
      node: process.version,
      cpus: cpus().length,
      cpu: cpus()[0]?.model,
      loadBefore,
      loadAfter: load(),
      filesystem: filesystem(base),
    },
  };
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  process.stderr.write(
    `bench:startup: npm start p50 ${npmStart.p50} ms (min ${npmStart.min}, max ${npmStart.max}), anvil p50 ${anvil.p50} ms, ratio x${out.ratios['npm start']}; ` +
      `target ${TARGET_MS} ms ${out.target.met ? 'met' : 'MISSED'}; load ${loadBefore.join('/')}\n`,
  );
}

/** Runs `fn` with extra environment variables set for the children it spawns. */
async function withEnv<T>(env: NodeJS.ProcessEnv | undefined, fn: () => Promise<T>): Promise<T> {
  if (!env) return fn();
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

await main();
