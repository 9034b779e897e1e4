import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EthstatsReporter, type EthstatsBlock, type EthstatsNodeInfo, type ReporterState } from '../../core/ethstats/index.ts';
import { keccak256 } from '../../core/primitives/keccak.ts';
import { startEthstatsServer, type ServerEvent, type TestEthstatsServer } from './support/ethstatsServer.ts';

const INFO: EthstatsNodeInfo = {
  node: 'xone-ts/v0.1.0/linux-x64/node20',
  port: 30303,
  net: '2040',
  protocol: 'xone/1',
  api: 'No',
  os: 'linux',
  os_v: 'x64',
  client: '0.1.0',
  canUpdateHistory: true,
};
const block = (number: number): EthstatsBlock => ({
  number,
  hash: `0x${number.toString(16).padStart(64, '0')}`,
  parentHash: `0x${Math.max(0, number - 1)
    .toString(16)
    .padStart(64, '0')}`,
  timestamp: 1_700_000_000 + number * 2,
  miner: '0x' + '11'.repeat(20),
  gasUsed: 21_000,
  gasLimit: 30_000_000,
  difficulty: '2',
  totalDifficulty: String(2 * number + 1),
  transactions: [],
  transactionsRoot: '0x' + '22'.repeat(32),
  stateRoot: '0x' + '33'.repeat(32),
  uncles: [],
});

// One server worker for the file (a worker start costs seconds on a loaded host); each test reconfigures it.
let server!: TestEthstatsServer;
let reporter: EthstatsReporter | undefined;
beforeAll(async () => {
  server = await startEthstatsServer();
});
afterAll(async () => {
  await server.stop();
});
afterEach(async () => {
  await reporter?.close();
  reporter = undefined;
});

/** Polls the server's events until `pred` holds (bounded: 10 s). */
async function until(pred: (events: ServerEvent[]) => boolean, what: string): Promise<ServerEvent[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const events = await server.events();
    if (pred(events)) return events;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events.map((e) => e.kind))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const count = (events: ServerEvent[], kind: ServerEvent['kind']) => events.filter((e) => e.kind === kind).length;

async function startReporter(
  secret: string,
  options: ConstructorParameters<typeof EthstatsReporter>[3] = {},
  history: (n: number[]) => EthstatsBlock[] = () => [],
) {
  const states: ReporterState[] = [];
  reporter = new EthstatsReporter(
    `node-a:${secret}@${server.hostPort}`,
    INFO,
    { history, onState: (s) => states.push(s) },
    { backoffMinMs: 100, backoffMaxMs: 800, ...options },
  );
  await reporter.init();
  return states;
}

describe('ethstats reporter against a faithful server', () => {
  it('default: logs in, then sends latency, block, pending and stats on connect and every interval', async () => {
    await server.configure({});
    await startReporter('s3cret', { reportIntervalMs: 300 });
    reporter?.head(block(7));
    reporter?.stats({ active: true, syncing: false, mining: true, hashrate: 0, peers: 3, gasPrice: 1, uptime: 100 });
    const events = await until((e) => count(e, 'stats') >= 3 && count(e, 'latency') >= 1 && count(e, 'block') >= 1, 'reports');
    const hello = events.find((e) => e.kind === 'hello')?.payload as { id: string; secret: string; info: Record<string, unknown> };
    expect(hello).toMatchObject({ id: 'node-a', secret: 's3cret', info: { name: 'node-a', net: '2040', canUpdateHistory: true } });
    expect(events.findIndex((e) => e.kind === 'ready')).toBeLessThan(events.findIndex((e) => e.kind === 'node-ping'));
    expect(events.find((e) => e.kind === 'block')?.payload).toMatchObject({ id: 'node-a', block: { number: 7 } });
    expect((events.find((e) => e.kind === 'latency')?.payload as { latency: string }).latency).toMatch(/^\d+$/);
    expect(events.filter((e) => e.kind === 'stats').at(-1)?.payload).toMatchObject({ stats: { peers: 3, mining: true } });
    expect(count(events, 'close')).toBe(0);
  });

  it('behavior: a wrong secret is refused; the reporter backs off and retries without crashing', async () => {
    await server.configure({});
    const states = await startReporter('wrong');
    const events = await until((e) => count(e, 'rejected') >= 3, 'three refused logins');
    expect(count(events, 'ready')).toBe(0);
    expect(states).not.toContain('connected');
    expect(states.filter((s) => s === 'backoff').length).toBeGreaterThanOrEqual(2);
  });

  it('behavior: a burst of heads is coalesced to the latest', async () => {
    await server.configure({});
    await startReporter('s3cret', { headMinIntervalMs: 300 });
    await until((e) => count(e, 'ready') === 1, 'login');
    for (let n = 1; n <= 200; n++) reporter?.head(block(n));
    const events = await until(
      (e) => e.some((x) => x.kind === 'block' && (x.payload as { block: { number: number } }).block.number === 200),
      'head 200',
    );
    expect(count(events, 'block')).toBeLessThanOrEqual(4);
  });

  it('behavior: answers a history request with the node blocks, newest first', async () => {
    await server.configure({});
    const asked: number[][] = [];
    await startReporter('s3cret', {}, (numbers) => {
      asked.push(numbers);
      return numbers.filter((n) => n <= 5).map(block);
    });
    await until((e) => count(e, 'ready') === 1, 'login');
    await server.requestHistory([3, 5, 4, 9]);
    const events = await until((e) => count(e, 'history') === 1, 'history');
    expect(asked).toEqual([[3, 5, 4, 9]]);
    const history = (events.find((e) => e.kind === 'history')?.payload as { history: EthstatsBlock[] }).history;
    expect(history.map((b) => b.number)).toEqual([5, 4, 3]);
  });

  it('behavior: heartbeats are answered while the main thread is blocked by heavy work; no abnormal close', async () => {
    await server.configure({ pingIntervalMs: 100, pongTimeoutMs: 1_000 });
    const states = await startReporter('s3cret');
    await until((e) => count(e, 'primus-pong') >= 2, 'first heartbeats');
    // Heavy import stand-in: 2.5 s of synchronous hashing on this (the node's main) thread.
    const t0 = Date.now();
    let h = new Uint8Array(32);
    while (Date.now() - t0 < 2_500) for (let i = 0; i < 1_000; i++) h = Uint8Array.from(keccak256(h));
    const blockedFrom = (await server.events()).at(-1)?.t ?? 0;
    const events = await until((e) => e.some((x) => x.kind === 'primus-pong' && x.t > blockedFrom + 200), 'heartbeats after the block');
    const pongsDuring = events.filter((e) => e.kind === 'primus-pong' && e.t >= blockedFrom - 2_500 && e.t <= blockedFrom);
    // 25 heartbeats fall in the 2.5 s; a loaded CI host may delay some, but none may go unanswered for 1 s.
    expect(pongsDuring.length).toBeGreaterThanOrEqual(10);
    expect(count(events, 'heartbeat-timeout')).toBe(0);
    expect(count(events, 'close')).toBe(0);
    expect(count(events, 'connect')).toBe(1);
    expect(states.filter((s) => s === 'connected')).toHaveLength(1);
    expect(h.length).toBe(32);
  });

  it('behavior: a late node-pong is ignored, not fatal', async () => {
    await server.configure({ nodePongDelayMs: 400 });
    await startReporter('s3cret', { pingTimeoutMs: 100, reportIntervalMs: 250 });
    const events = await until((e) => count(e, 'node-ping') >= 3 && count(e, 'stats') >= 3, 'several rounds');
    await new Promise((r) => setTimeout(r, 500));
    const later = await server.events();
    expect(count(later, 'latency')).toBe(0);
    expect(count(later, 'close')).toBe(0);
    expect(count(later, 'connect')).toBe(1);
    expect(count(later, 'stats')).toBeGreaterThan(count(events, 'stats'));
  });

  it('behavior: reconnects after the server drops the connection, and closes with 1001 on shutdown', async () => {
    await server.configure({});
    const states = await startReporter('s3cret');
    await until((e) => count(e, 'ready') === 1, 'login');
    await server.drop();
    await until((e) => count(e, 'ready') === 2, 'second login');
    expect(states).toContain('backoff');
    await reporter?.close();
    reporter = undefined;
    const events = await until((e) => count(e, 'close') === 2, 'shutdown close');
    expect(events.filter((e) => e.kind === 'close').map((e) => (e.payload as { code: number }).code)).toEqual([1006, 1001]);
  });
});
