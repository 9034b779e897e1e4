/**
 * A network of separate `xone run --mine` processes on 127.0.0.1, every one a Clique signer of the same genesis,
 * each reaching every other through the partition proxy (`--peer` per other node). Nodes run from a private bundle
 * of the CLI (fast starts, and other engineers' edits to the checkout cannot change it mid-test). Helpers read heads
 * over JSON-RPC and wait for convergence.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDist } from '../../../bin/build.mjs';
import { loggerCode } from '../../../core/bench/reorg/blockTree.ts';
import { buildCliqueExtra } from '../../../core/consensus/clique/extraData.ts';
import { bytesToHex } from '../../../core/primitives/hex.ts';
import { keccak256 } from '../../../core/primitives/keccak.ts';
import { addressFromPrivateKey } from '../../../core/primitives/secp256k1/index.ts';
import { BLOCK_FORKS_AT_GENESIS } from '../../support/genesisConfig.ts';
import { PartitionProxy } from './partitionProxy.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
export const CHAIN_ID = 7_357;
/** The funded account that sends the tests' transactions. */
export const SENDER_KEY = key(0xee);
/** A contract that emits one log (LOG1, topic LOGGER_TOPIC) on every call. */
export const LOGGER = '0x00000000000000000000000000000000000010ff';
export const LOGGER_TOPIC = bytesToHex(keccak256(new TextEncoder().encode('Logged()')));

function key(i: number): Uint8Array {
  const k = new Uint8Array(32);
  k[0] = 0x5e;
  k[31] = i;
  return k;
}

/** One JSON log line of a node. */
export interface LogLine {
  msg: string;
  receivedAt: number;
  [key: string]: unknown;
}

/** One running node process. */
export interface NetNode {
  index: number;
  address: string;
  datadir: string;
  url: string;
  proc: ChildProcess;
  lines: LogLine[];
  exited: Promise<void>;
}

/** The network: its nodes, the proxy between them, and what restarts a killed node. */
export interface Network {
  nodes: NetNode[];
  proxy: PartitionProxy;
  period: number;
  /** SIGKILLs node `i` (no shutdown: whatever was not durable is gone). */
  kill(i: number): Promise<void>;
  /** Starts node `i` again on its datadir (a new port, told to the proxy). */
  restart(i: number): Promise<NetNode>;
  close(): Promise<void>;
}

/** Starts `size` signers sealing every `period` seconds. */
export async function startNetwork(size: number, period: number): Promise<Network> {
  mkdirSync(join(ROOT, '.xone', 'test-network'), { recursive: true });
  const work = mkdtempSync(join(ROOT, '.xone', 'test-network', 'net-'));
  const dist = join(work, 'dist');
  await buildDist(dist);
  const keys = Array.from({ length: size }, (_, i) => key(i + 1));
  const addresses = keys.map((k) => addressFromPrivateKey(k));
  const sorted = [...addresses].sort(Buffer.compare);
  const genesis = {
    config: {
      chainId: CHAIN_ID,
      ...BLOCK_FORKS_AT_GENESIS,
      shanghaiTime: 0,
      clique: { period, epoch: 30_000 },
    },
    nonce: '0x0',
    timestamp: '0x' + Math.floor(Date.now() / 1000).toString(16),
    extraData: bytesToHex(buildCliqueExtra(new Uint8Array(32), sorted)),
    gasLimit: '0x1c9c380',
    difficulty: '0x1',
    mixHash: '0x' + '00'.repeat(32),
    coinbase: '0x' + '00'.repeat(20),
    alloc: {
      [bytesToHex(addressFromPrivateKey(SENDER_KEY)).slice(2)]: { balance: '0x' + (10n ** 24n).toString(16) },
      [LOGGER.slice(2)]: { balance: '0x0', code: bytesToHex(loggerCode(Buffer.from(LOGGER_TOPIC.slice(2), 'hex'))) },
    },
  };
  const genesisFile = join(work, 'genesis.json');
  writeFileSync(genesisFile, JSON.stringify(genesis, null, 2));
  const proxy = await PartitionProxy.start(size);
  const keyFiles = keys.map((k, i) => {
    const f = join(work, `signer-${i}.key`);
    writeFileSync(f, bytesToHex(k).slice(2) + '\n');
    chmodSync(f, 0o600);
    return f;
  });
  const nodes: NetNode[] = [];
  const launch = async (i: number): Promise<NetNode> => {
    const datadir = join(work, `node-${i}`);
    const peers = Array.from({ length: size }, (_, j) => j)
      .filter((j) => j !== i)
      .flatMap((j) => ['--peer', proxy.url(i, j)]);
    const args = ['run', '--genesis', genesisFile, '--datadir', datadir, '--mine', '--signer', keyFiles[i], ...peers];
    const node = await spawnNode(i, bytesToHex(addresses[i]), datadir, [...args, '--http.port', '0', '--recovery-workers', '0'], dist);
    proxy.target(i, Number(new URL(node.url).port));
    nodes[i] = node;
    return node;
  };
  try {
    await Promise.all(keys.map((_, i) => launch(i)));
  } catch (err) {
    // One node could not start: stop the others, leave nothing running.
    for (const n of nodes) n?.proc.kill('SIGKILL');
    await proxy.close();
    throw err;
  }
  return {
    nodes,
    proxy,
    period,
    async kill(i) {
      nodes[i].proc.kill('SIGKILL');
      await nodes[i].exited;
    },
    restart: (i) => launch(i),
    async close() {
      for (const n of nodes) if (n.proc.exitCode === null && n.proc.signalCode === null) n.proc.kill('SIGTERM');
      await Promise.all(nodes.map((n) => n.exited));
      await proxy.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

async function spawnNode(index: number, address: string, datadir: string, args: string[], dist: string): Promise<NetNode> {
  const proc = spawn(process.execPath, [join(ROOT, 'bin', 'xone.mjs'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, XONE_DIST: dist },
  });
  const lines: LogLine[] = [];
  let out = '';
  let partial = '';
  proc.stdout?.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop() ?? '';
    for (const raw of parts) {
      out = (out + raw + '\n').slice(-20_000);
      if (raw.startsWith('{')) lines.push({ ...(JSON.parse(raw) as LogLine), receivedAt: Date.now() });
    }
  });
  proc.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node ${index} did not start:\n${out}`)), 120_000);
    const poll = setInterval(() => {
      const started = lines.find((l) => l.msg === 'node started');
      if (started) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(String(started.rpc));
      }
    }, 50);
    void exited.then(() => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`node ${index} exited:\n${out}`));
    });
  });
  return { index, address, datadir, url, proc, lines, exited };
}

/** A head as a node serves it. */
export interface HeadInfo {
  number: number;
  hash: string;
  stateRoot: string;
}

/** One JSON-RPC call (null on a connection error: a node may be down). */
export async function call<T>(url: string, method: string, params: unknown[] = []): Promise<T | null> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(5_000),
    });
    const json = (await res.json()) as { result?: T; error?: { message: string } };
    if (json.error) throw new Error(`${method}: ${json.error.message}`);
    return json.result ?? null;
  } catch (err) {
    if (err instanceof Error && err.message.startsWith(method)) throw err;
    return null;
  }
}

/** The node's head block (number, hash, state root), or null when it does not answer. */
export async function headOf(node: NetNode): Promise<HeadInfo | null> {
  const b = await call<{ number: string; hash: string; stateRoot: string }>(node.url, 'eth_getBlockByNumber', ['latest', false]);
  return b && { number: Number(b.number), hash: b.hash, stateRoot: b.stateRoot };
}

/** Polls every node's head until `done(heads)`; returns the heads then, or throws after `timeoutMs`. */
export async function waitHeads(
  nodes: readonly NetNode[],
  done: (heads: HeadInfo[]) => boolean,
  timeoutMs: number,
  what: string,
): Promise<HeadInfo[]> {
  const until = Date.now() + timeoutMs;
  let last: (HeadInfo | null)[] = [];
  while (Date.now() < until) {
    last = await Promise.all(nodes.map(headOf));
    if (last.every((h) => h !== null) && done(last as HeadInfo[])) return last as HeadInfo[];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not reached within ${timeoutMs} ms; heads ${JSON.stringify(last)}`);
}

/** True when every head is the same block. */
export const sameHead = (heads: readonly HeadInfo[]): boolean => heads.every((h) => h.hash === heads[0].hash);
