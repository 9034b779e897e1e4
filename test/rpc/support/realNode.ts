/**
 * The real node behind the RPC tests: `XoneNode.start` (the composition root `xone run` uses) on a fresh datadir on
 * disk, with its chain thread, store, read-only store views, tx pool and RPC server on 127.0.0.1:0. Nothing is
 * replaced: a test that needs a fault injects it through the node's own fault seams (NodeOptions.faults).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseGenesis } from '../../../core/chain/genesis/index.ts';
import { createLogger, silentLogger } from '../../../core/log/index.ts';
import { devAccounts, devGenesisJson } from '../../../core/node/dev/devChain.ts';
import { XoneNode } from '../../../core/node/node.ts';
import type { NodeOptions } from '../../../core/node/options.ts';
import { hexToBytes } from '../../../core/primitives/hex.ts';
import type { RpcOptions } from '../../../core/rpc/options.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

export interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface RealNode {
  node: XoneNode;
  url: string;
  wsUrl: string;
  datadir: string;
  /** POSTs a body (object → JSON) and returns status, headers and parsed JSON (or null for an empty body). */
  post(body: unknown, init?: RequestInit): Promise<{ status: number; headers: Headers; json: unknown; text: string }>;
  /** One call; the whole response object. */
  call(method: string, params?: unknown[]): Promise<RpcAnswer>;
  /** One call's result; throws with the error message when it failed. */
  result<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /**
   * Seals one block from the pool now: what evm_mine does (DevView.mine → Producer.mine), called in-process so a node
   * with a tight call deadline can still seal a heavy block. Resolves once the block is published, as the caller's
   * next request would find it.
   */
  mine(timestamp?: bigint): Promise<void>;
  /** Stops the node; the datadir is removed unless the caller gave it or `keepDatadir` is set. */
  close(opts?: { keepDatadir?: boolean }): Promise<void>;
}

export interface RealNodeOptions {
  rpc?: Partial<RpcOptions>;
  /** Dev RPC methods (evm_*, anvil_*): default true. */
  dev?: boolean;
  /** Seal blocks (the dev signer): default true unless `peers` is set. */
  mine?: boolean;
  /** Default `manual`: blocks only on evm_mine, so a fixture chain has exactly the blocks a test made. */
  miningMode?: NodeOptions['miningMode'];
  batch?: number;
  peers?: string[];
  faults?: NodeOptions['faults'];
  /**
   * Genesis time in seconds (default 0) and block period (default 2): a chain that a follower must accept is built
   * with explicit past timestamps (`mine(timestamp)`), since sealing faster than the period runs ahead of the clock.
   */
  genesisTimestamp?: number;
  period?: number;
  /** Start the watchdog thread (load shedding); default off, so a loaded host cannot turn methods into -32005. */
  watchdog?: boolean;
  /** The RPC server's clock (filter expiry, /health head age), for tests where the clock is the point. */
  rpcClock?: () => number;
  /** Reopen this datadir (a restart); the caller owns it. Default: a fresh one, removed on close. */
  datadir?: string;
  /** Edits the dev genesis JSON before it is parsed (e.g. a fork scheduled in the future). */
  editGenesis?: (genesis: Record<string, unknown>) => void;
}

/** Starts a node on the dev chain (chain id 1337, the dev mnemonic's 20 funded accounts, account 0 signs). */
export async function startRealNode(options: RealNodeOptions = {}): Promise<RealNode> {
  mkdirSync(join(ROOT, '.xone', 'test-rpc'), { recursive: true });
  const owned = options.datadir === undefined;
  const datadir = options.datadir ?? mkdtempSync(join(ROOT, '.xone', 'test-rpc', 'node-'));
  const accounts = devAccounts();
  const mine = options.mine ?? !options.peers?.length;
  let node: XoneNode;
  const genesisJson = devGenesisJson(accounts, options.period ?? 2, options.genesisTimestamp);
  options.editGenesis?.(genesisJson);
  try {
    node = await XoneNode.start(
      {
        datadir,
        genesis: parseGenesis(genesisJson),
        dev: options.dev ?? true,
        mine,
        ...(mine ? { signerKey: hexToBytes(accounts[0].privateKey), miningMode: options.miningMode ?? 'manual' } : {}),
        http: { host: '127.0.0.1', port: 0 },
        watchdog: options.watchdog ?? false,
        // Two warm pool threads, not all eight: dozens of these nodes start per test run on a shared host.
        rpcPool: { warm: 2 },
        ...(options.batch !== undefined ? { batch: options.batch } : {}),
        ...(options.peers ? { peers: options.peers, recoveryWorkers: 0 } : {}),
        ...(options.rpc ? { rpc: options.rpc } : {}),
        ...(options.faults ? { faults: options.faults } : {}),
      },
      // XONE_TEST_NODE_LOG=debug prints the node's log lines (to debug a failing test).
      {
        logger: process.env.XONE_TEST_NODE_LOG
          ? createLogger({ level: process.env.XONE_TEST_NODE_LOG as 'info', name: 'xone' })
          : silentLogger,
        ...(options.rpcClock ? { rpcClock: options.rpcClock } : {}),
      },
    );
  } catch (err) {
    if (owned) rmSync(datadir, { recursive: true, force: true });
    throw err;
  }
  // Pooled calls (eth_call, eth_getLogs, eth_getProof) would otherwise wait for a thread to load: tests time them.
  await node.rpcPoolReady();
  const url = node.url + '/';
  const post: RealNode['post'] = async (body, init = {}) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...init,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: text === '' ? null : JSON.parse(text) };
  };
  let id = 0;
  const call: RealNode['call'] = async (method, params = []) =>
    (await post({ jsonrpc: '2.0', id: ++id, method, params })).json as RpcAnswer;
  return {
    node,
    url,
    wsUrl: url.replace('http://', 'ws://'),
    datadir,
    post,
    call,
    async result<T>(method: string, params: unknown[] = []): Promise<T> {
      const r = await call(method, params);
      if (r.error) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
      return r.result as T;
    },
    async mine(timestamp) {
      if (!node.producer) throw new Error('this node does not seal blocks');
      await node.producer.mine(1, timestamp);
      // A produced block is published (encodings, filters, subscriptions) in the event-loop turn that answered its
      // caller, before the next request is read: wait that turn out, as a client's next request does.
      await new Promise((resolve) => setImmediate(resolve));
    },
    async close(opts = {}) {
      try {
        await node.close();
      } finally {
        if (owned && !opts.keepDatadir) rmSync(datadir, { recursive: true, force: true });
      }
    },
  };
}
