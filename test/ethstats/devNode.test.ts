/**
 * `xone run --dev --ethstats name:secret@host:port` end to end: a real dev node child process reports to the faithful
 * test server (login, its mined blocks read from the store, pending, stats, history from the store) and closes with
 * 1001 when it is stopped.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EthstatsBlock } from '../../core/ethstats/index.ts';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { startEthstatsServer, type ServerEvent, type TestEthstatsServer } from './support/ethstatsServer.ts';

let server!: TestEthstatsServer;
let node: DevNode | undefined;
beforeAll(async () => {
  server = await startEthstatsServer();
});
afterAll(async () => {
  await node?.stop();
  await server?.stop();
});

/** Polls the server's events until `pred` holds (bounded: 30 s, a cold node start on a loaded host). */
async function until(pred: (events: ServerEvent[]) => boolean, what: string): Promise<ServerEvent[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events = await server.events();
    if (pred(events)) return events;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events.map((e) => e.kind))}\n${node?.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const miningStats = (e: ServerEvent) => (e.payload as { stats?: { mining?: boolean } }).stats?.mining === true;
const blockNumber = (e: ServerEvent) => (e.payload as { block: EthstatsBlock }).block.number;

it('behavior: a dev node logs in, reports mined blocks, pending, stats and history, and closes with 1001 on SIGTERM', async () => {
  node = await startDevNode(['--period', '1', '--ethstats', `xone-dev:s3cret@ws://${server.hostPort}`]);
  const events = await until(
    // The login carries idle stats until the node's first report: wait for a report that says it mines.
    (e) => e.some((x) => x.kind === 'block' && blockNumber(x) >= 1) && e.some((x) => x.kind === 'stats' && miningStats(x)),
    'a mined block and a mining stats report',
  );
  const hello = events.find((e) => e.kind === 'hello')?.payload as { id: string; info: { net: string; node: string } };
  expect(hello.id).toBe('xone-dev');
  expect(hello.info.net).toBe('1337');
  expect(hello.info.node).toMatch(/^xone-ts\//);
  expect(events.filter((e) => e.kind === 'ready').length).toBe(1);
  const block = (events.find((e) => e.kind === 'block' && blockNumber(e) >= 1)?.payload as { block: EthstatsBlock }).block;
  // The block as the node serves it over JSON-RPC.
  const rpc = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: [`0x${block.number.toString(16)}`, false] }),
  }).then((r) => r.json() as Promise<{ result: { hash: string; miner: string; totalDifficulty: string } }>);
  expect(block.hash).toBe(rpc.result.hash);
  expect(block.miner).toBe(rpc.result.miner);
  expect(block.totalDifficulty).toBe(BigInt(rpc.result.totalDifficulty).toString());
  expect(events.filter((e) => e.kind === 'stats' && miningStats(e)).at(-1)?.payload).toMatchObject({
    stats: { active: true, mining: true, peers: 0 },
  });
  expect(events.some((e) => e.kind === 'pending')).toBe(true);

  await server.requestHistory([0, 1]);
  const withHistory = await until((e) => e.some((x) => x.kind === 'history'), 'history');
  const history = (withHistory.find((e) => e.kind === 'history')?.payload as { history: EthstatsBlock[] }).history;
  expect(history.map((b) => b.number).sort()).toEqual([0, 1]);

  await node.stop();
  node = undefined;
  const closed = await until((e) => e.some((x) => x.kind === 'close'), 'close');
  expect(closed.filter((e) => e.kind === 'close').map((e) => (e.payload as { code: number }).code)).toEqual([1001]);
}, 120_000);
