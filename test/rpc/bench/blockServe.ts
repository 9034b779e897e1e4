/**
 * Benchmark of the RPC hot path for a full block: a block of 1,428 signed transfers (and its receipts) is fetched
 * over real HTTP from a server on 127.0.0.1, first uncached (encode + serve) and then from the encoding cache
 * (splice + serve). Prints one JSON object and a one-line summary; the ratio compares the cached path to the
 * uncached one measured in the same run. Run: npm run bench:rpc-block
 */
import { execSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { ADDRESSES, ChainBuilder } from '../support/chainBuilder.ts';
import { MemoryNode } from '../support/memoryNode.ts';
import { createRpcServer } from '../../../core/rpc/server.ts';

const TXS = Number(process.env.TXS ?? 1428);
const RUNS = Number(process.env.RUNS ?? 20);

const builder = new ChainBuilder();
await builder.addBlock([]);
const tBuild = performance.now();
await builder.addBlock(
  Array.from({ length: TXS }, (_, i) => ({ from: i % 3, to: ADDRESSES[(i + 1) % 3], value: 1n, type: (i % 2 ? 2 : 0) as 0 | 2 })),
);
const buildMs = performance.now() - tBuild;
const node = new MemoryNode(builder);
const server = createRpcServer({ port: 0 }, { chain: node, state: node, exec: node });
const { port } = await server.start();
const url = `http://127.0.0.1:${port}/`;

async function fetchOnce(method: string, params: unknown[]): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  return { ms: performance.now() - t0, bytes: text.length };
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const round = (x: number) => Math.round(x * 100) / 100;

async function measure(method: string, params: unknown[]) {
  const uncached: number[] = [];
  for (let i = 0; i < Math.min(RUNS, 5); i++) {
    server.services.cache.clear();
    uncached.push((await fetchOnce(method, params)).ms);
  }
  const cached: number[] = [];
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const r = await fetchOnce(method, params);
    cached.push(r.ms);
    bytes = r.bytes;
  }
  // Server-side work alone (parse, dispatch, splice), without the HTTP client's share of the CPU.
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const serverSide: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await server.dispatcher.handle(body, { clientIp: '127.0.0.1', transport: 'http' });
    serverSide.push(performance.now() - t0);
  }
  return {
    dispatchCachedP50Ms: round(pct(serverSide, 50)),
    bytes,
    uncachedP50Ms: round(pct(uncached, 50)),
    cachedP50Ms: round(pct(cached, 50)),
    cachedP95Ms: round(pct(cached, 95)),
    speedup: round(pct(uncached, 50) / pct(cached, 50)),
  };
}

const block = await measure('eth_getBlockByNumber', ['0x1', true]);
const receipts = await measure('eth_getBlockReceipts', ['0x1']);
await server.close();
let filesystem = '';
try {
  filesystem = execSync('findmnt -n -o FSTYPE -T /tmp').toString().trim();
} catch {
  filesystem = 'unknown';
}
const out = {
  bench: 'rpc-block-serve',
  txs: TXS,
  runs: RUNS,
  buildMs: Math.round(buildMs),
  fullBlock: block,
  receipts,
  filesystem,
  loadavg: loadavg().map(round),
  node: process.version,
};
console.log(JSON.stringify(out));
console.log(
  `rpc-block-serve: ${TXS} txs full block ${block.cachedP50Ms} ms cached over HTTP (server side ${block.dispatchCachedP50Ms} ms) (${block.uncachedP50Ms} ms uncached, x${block.speedup}), receipts ${receipts.cachedP50Ms} ms cached (server side ${receipts.dispatchCachedP50Ms} ms) (${receipts.uncachedP50Ms} ms uncached, x${receipts.speedup}); load ${out.loadavg[0]}`,
);
