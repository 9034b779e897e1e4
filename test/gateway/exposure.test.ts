import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { ADMIN_TOKEN, call, post, startTestGateway, testConfig, until, type TestGateway } from './support/gateway.ts';

// Issue #17 item 12, against the real core dev node: idle, half-open and slow connections, the per-IP connection
// cap, the default method allow-list, and what anonymous callers learn about the upstreams.
let node: DevNode;
let g: TestGateway;
let allowing: TestGateway;
let dead: TestGateway;

beforeAll(async () => {
  node = await startDevNode();
  g = await startTestGateway(
    testConfig({ upstreams: [node.url], limits: { headersTimeoutMs: 500, requestTimeoutMs: 1_000, maxConnectionsPerIp: 5 } }),
    { start: false },
  );
  allowing = await startTestGateway(
    testConfig({
      upstreams: [node.url],
      tiers: {
        anonymous: { ratePerSec: 10, burst: 50, allowMethods: ['eth_chainId', 'txpool_status'] },
        default: { ratePerSec: 10, burst: 10 },
      },
    }),
    { start: false },
  );
  dead = await startTestGateway(testConfig({ upstreams: ['http://127.0.0.1:9'], retry: { attempts: 0 } }), { start: false });
}, 90_000);
afterAll(async () => {
  await g?.close();
  await allowing?.close();
  await dead?.close();
  await node?.stop();
});

function open(url: string): Promise<{ socket: Socket; closed: Promise<number> }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const socket = connect(Number(port), '127.0.0.1', () =>
      resolve({ socket, closed: new Promise((r) => socket.once('close', () => r(performance.now() - t0))) }),
    );
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

test('behavior: an idle (half-open) connection and a slow body are closed by the header and request timeouts', async () => {
  // Node's defaults held these 60-300 s; configured to 0.5 s / 1 s here, they close well within 10 s.
  const idle = await open(g.url);
  const slow = await open(g.url);
  let answer = '';
  slow.socket.on('data', (d) => (answer += d.toString()));
  slow.socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{');
  const drip = setInterval(() => slow.socket.writable && slow.socket.write(' '), 200);
  try {
    const [idleMs, slowMs] = await Promise.all([idle.closed, slow.closed]);
    expect(idleMs).toBeLessThan(10_000);
    expect(slowMs).toBeLessThan(10_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  } finally {
    clearInterval(drip);
  }
});

test('behavior: connections past limits.maxConnectionsPerIp are closed at once; the others still work', async () => {
  const sockets = await Promise.all(Array.from({ length: 8 }, () => open(g.url)));
  const settled = await Promise.all(
    sockets.map((s) => Promise.race([s.closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('open'), 300))])),
  );
  expect(settled.filter((x) => x === 'closed')).toHaveLength(3);
  for (const s of sockets) s.socket.destroy();
  await Promise.all(sockets.map((s) => s.closed));
  expect((await post(g.url, call('eth_chainId'))).status).toBe(200);
  expect(await g.metricsText()).toMatch(/xone_gateway_connections_refused_total\{reason="per_ip"\} 3/);
});

test('behavior: methods outside the default allow-list are refused with -32004 and never reach the core; a tier can allow one', async () => {
  const refused = [
    'engine_getPayloadV1',
    'clique_getSigners',
    'eth_sendTransaction',
    'admin_peers',
    'evm_mine',
    'txpool_status',
    'personal_sign',
  ];
  const r = await post(
    g.url,
    refused.map((m, i) => call(m, [], i)),
  );
  expect((r.body as { error?: { code: number } }[]).map((x) => x.error?.code)).toEqual(refused.map(() => -32004));
  const lines = g.lines.filter((l) => refused.includes(l.method as string));
  expect(lines).toHaveLength(refused.length);
  expect(lines.every((l) => l.upstream === null)).toBe(true);
  // This tier's own allow-list names txpool_status: the default deny entry txpool_* yields, the core answers.
  const allowed = await post(allowing.url, [call('txpool_status', [], 1), call('eth_blockNumber', [], 2)]);
  const [status, other] = allowed.body as { result?: unknown; error?: { code: number } }[];
  expect(status?.result).toMatchObject({ pending: expect.any(String) });
  expect(other?.error?.code).toBe(-32004);
});

test('behavior: anonymous callers learn nothing about the upstreams; the operator does', async () => {
  const anon = await fetch(`${g.url}/health`).then((r) => r.text());
  expect(anon).not.toMatch(/u0|upstream/);
  const operator = (await fetch(`${g.url}/health`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) => r.json())) as {
    upstreams: { name: string }[];
  };
  expect(operator.upstreams.map((u) => u.name)).toEqual(['u0']);
  const down = await post(dead.url, call('eth_getTransactionCount', ['0x00000000000000000000000000000000000000aa', 'pending']));
  expect(down.status).toBe(503);
  expect(JSON.stringify(down.body)).not.toMatch(/u0|127\.0\.0\.1|ECONNREFUSED/);
  const line = await until(() => dead.lines.find((l) => l.method === 'eth_getTransactionCount'));
  expect(line).toMatchObject({ upstream: 'u0', upstream_error: expect.stringMatching(/\S/) });
});
