/**
 * `npm run bench:sync-http`: what the `/xone/v1/` transport costs a follower. A producer builds a chain of transfer
 * blocks (not timed), serves it on 127.0.0.1, and a follower (batch 128, durable group commit) imports it over HTTP;
 * the peer in the same run is the same import from the blocks already in memory (no HTTP), so the ratio is the
 * transport's overhead. Also: the longest main-loop stall during the HTTP import (a 10 ms probe) and RSS after it.
 * Prints JSON, then one summary line. Env: BENCH_SYNC_BLOCKS (default 20), BENCH_SYNC_TXS per block (default 500).
 * Datadirs live on the repo's disk (.xone/bench/sync): /tmp may be tmpfs, where fsync is free.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { findmnt, loadAverage } from './store/env.ts';
import { parseGenesis } from '../chain/genesis/index.ts';
import { headerHash } from '../chain/header/index.ts';
import { signTransaction } from '../chain/transaction/index.ts';
import { ChainService } from '../chainService/chainService.ts';
import { devAccounts, devGenesisJson } from '../node/dev/devChain.ts';
import { hexToBytes } from '../primitives/hex.ts';
import { Follower } from '../sync/follower.ts';
import { createSyncRoutes } from '../sync/serving/routes.ts';
import { storeServingSource } from '../sync/serving/storeServingSource.ts';
import { HttpSyncSource } from '../sync/source/httpSyncSource.ts';
import { chainServiceTarget } from '../sync/target.ts';

const BLOCKS = Number(process.env.BENCH_SYNC_BLOCKS ?? 20);
const TXS = Number(process.env.BENCH_SYNC_TXS ?? 500);
const root = join(import.meta.dirname, '..', '..', '..', '.xone', 'bench', 'sync');
mkdirSync(root, { recursive: true });
const dirs: string[] = [];
const datadir = (): string => {
  const d = mkdtempSync(join(root, 'dd-'));
  dirs.push(d);
  return d;
};

const accounts = devAccounts(11);
const genesis = parseGenesis(devGenesisJson(accounts));
const genesisHash = headerHash(genesis.genesisHeader);
const loadBefore = loadAverage();

// 1. The chain (not timed): TXS transfers per block, ten senders round-robin.
const producer = ChainService.open({ datadir: datadir(), genesis, batch: 0, signerKey: hexToBytes(accounts[0].privateKey) });
const nonces = new Array<bigint>(10).fill(0n);
for (let b = 0; b < BLOCKS; b++) {
  const txs = Array.from({ length: TXS }, (_, i) => {
    const s = 1 + (i % 10);
    const tx = signTransaction(
      {
        type: 2,
        chainId: 1337n,
        nonce: nonces[s - 1]++,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1n,
        gasLimit: 21_000n,
        to: hexToBytes(accounts[(s % 10) + 1].address),
        value: 1n,
        data: new Uint8Array(0),
      },
      hexToBytes(accounts[s].privateKey),
    );
    return { raw: tx.raw, sender: hexToBytes(accounts[s].address) };
  });
  await producer.produce({ txs, timestamp: producer.head().header.timestamp + 2n });
}
const source = storeServingSource({ reader: producer.store, chainId: 1337n, submitTx: async () => new Uint8Array(32) });
const app = new Hono();
app.route('/xone/v1', createSyncRoutes({ source }));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((r) => server.once('listening', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// 2. The peer: the same import from memory.
const rlps = Array.from({ length: BLOCKS }, (_, i) => source.blockRlp(BigInt(i + 1)) as Uint8Array);
const local = ChainService.open({ datadir: datadir(), genesis, batch: 128 });
let t0 = performance.now();
for (let i = 0; i < rlps.length; i += 128) {
  await local.importBlocks(rlps.slice(i, i + 128));
  local.steady();
}
const localMs = performance.now() - t0;
local.close();

// 3. Over HTTP, with a loop-stall probe.
const follower = ChainService.open({ datadir: datadir(), genesis, batch: 128 });
let worst = 0;
let last = performance.now();
const probe = setInterval(() => {
  const now = performance.now();
  worst = Math.max(worst, now - last - 10);
  last = now;
}, 10);
t0 = performance.now();
await new Follower(
  { batch: 128 },
  { target: chainServiceTarget(follower), sources: [new HttpSyncSource({ url, genesisHash, chainId: 1337n })] },
).syncOnce();
const httpMs = performance.now() - t0;
clearInterval(probe);
const rssMb = process.memoryUsage().rss / 2 ** 20;
const ok = follower.head().number === BigInt(BLOCKS);
follower.close();
producer.close();
server.close();
for (const d of dirs) rmSync(d, { recursive: true, force: true });

const r = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;
const result = {
  bench: 'sync-http',
  blocks: BLOCKS,
  txsPerBlock: TXS,
  reachedHead: ok,
  http: { ms: r(httpMs), txPerSec: r((BLOCKS * TXS) / (httpMs / 1000), 0), blocksPerSec: r(BLOCKS / (httpMs / 1000)) },
  inMemoryPeer: { ms: r(localMs), txPerSec: r((BLOCKS * TXS) / (localMs / 1000), 0) },
  httpOverInMemory: r(localMs / httpMs, 3),
  longestStallMs: r(worst),
  rssMb: r(rssMb),
  filesystem: findmnt(root),
  loadAverage: { before: loadBefore, after: loadAverage() },
};
console.log(JSON.stringify(result, null, 2));
console.log(
  `sync-http: ${result.http.txPerSec} tx/s over HTTP vs ${result.inMemoryPeer.txPerSec} tx/s from memory (ratio ${result.httpOverInMemory}), longest stall ${result.longestStallMs} ms, RSS ${result.rssMb} MB`,
);
