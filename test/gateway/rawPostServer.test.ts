import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { startTestGateway, testConfig, until, type TestGateway } from './support/gateway.ts';

// The raw POST server in front of node:http (gateway/adapters/node/rawPostServer.ts), over real sockets against the
// real core dev node: pipelining, keep-alive, requests split across packets, half-close, and the requests it hands
// to node:http (Expect: 100-continue, chunked and oversized bodies, other methods, malformed requests, slow clients).
let node: DevNode;
let g: TestGateway;

beforeAll(async () => {
  node = await startDevNode();
  g = await startTestGateway(
    testConfig({ upstreams: [node.url], limits: { maxBodyBytes: 2_000, headersTimeoutMs: 400, requestTimeoutMs: 800 } }),
    { start: false },
  );
}, 90_000);
afterAll(async () => {
  await g?.close();
  await node?.stop();
});

const body = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] });
const post = (b: string, extra = '') =>
  `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${extra}content-length: ${Buffer.byteLength(b)}\r\n\r\n${b}`;

/** A raw connection that collects what the gateway sends. */
async function open(): Promise<{ socket: Socket; text: () => string; closed: Promise<void>; waitFor: (re: RegExp) => Promise<string> }> {
  const { port } = new URL(g.url);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  socket.on('error', () => undefined);
  let got = '';
  const waiters: (() => void)[] = [];
  socket.on('data', (d) => {
    got += d.toString('utf8');
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  const waitFor = async (re: RegExp) => {
    const end = Date.now() + 20_000;
    while (!re.test(got)) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${re} in ${JSON.stringify(got)}`);
      await Promise.race([new Promise<void>((r) => waiters.push(r)), closed, new Promise((r) => setTimeout(r, 50))]);
    }
    return got;
  };
  return { socket, text: () => got, closed, waitFor };
}

/** The responses in a stream of HTTP/1.1 answers with Content-Length bodies: status and body each. */
function responses(text: string): { status: number; head: string; body: string }[] {
  const out: { status: number; head: string; body: string }[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return out;
    const head = rest.slice(0, end);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    out.push({ status, head, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('behavior: pipelined requests in one packet are answered in order on one keep-alive connection', async () => {
  const c = await open();
  c.socket.write(post(body(1)) + post(body(2)) + post(body(3)));
  await c.waitFor(/"id":3/);
  const rs = responses(c.text());
  expect(rs.map((r) => JSON.parse(r.body).id)).toEqual([1, 2, 3]);
  expect(
    rs.every((r) => r.status === 200 && /\r\nConnection: keep-alive\r\n/.test(r.head) && /\r\nKeep-Alive: timeout=\d+/.test(r.head)),
  ).toBe(true);
  // Still open: a fourth request later on the same connection.
  c.socket.write(post(body(4)));
  await c.waitFor(/"id":4/);
  c.socket.destroy();
});

test('behavior: a request split across packets (inside the header block and the body) is answered once complete', async () => {
  const c = await open();
  const text = post(body(7));
  const cuts = [5, 30, text.indexOf('\r\n\r\n') + 2, text.length - 10, text.length - 1];
  let from = 0;
  for (const cut of cuts) {
    c.socket.write(text.slice(from, cut));
    from = cut;
    await sleep(30);
    expect(c.text()).toBe('');
  }
  c.socket.write(text.slice(from));
  await c.waitFor(/"id":7/);
  expect(responses(c.text())[0]?.status).toBe(200);
  c.socket.destroy();
});

test('behavior: Connection: close is answered, then the connection closes; a half-closed client is gone, as on node:http', async () => {
  const a = await open();
  a.socket.write(post(body(1), 'connection: close\r\n') + post(body(2)));
  await a.closed;
  expect(responses(a.text()).map((r) => JSON.parse(r.body).id)).toEqual([1]);
  expect(a.text()).toMatch(/\r\nConnection: close\r\n/);
  // The server ends its side at once (an answer already made may still go out first; the slow-upstream case is in
  // outages.test.ts, logged 499).
  const b = await open();
  b.socket.end(post(body(5)).slice(0, -5));
  await b.closed;
  expect(b.text()).toBe('');
  await until(() => g.lines.some((l) => l.http_status === 499 && l.method === null));
});

test('behavior: Expect: 100-continue, a chunked body and other methods go to node:http on the same connection, in order', async () => {
  const c = await open();
  // A POST answered here, then a GET (node:http from then on), then a POST again: three answers in order.
  c.socket.write(post(body(1)) + 'GET /health HTTP/1.1\r\nhost: x\r\n\r\n' + post(body(3)));
  await c.waitFor(/"id":3/);
  const rs = responses(c.text());
  expect(rs.map((r) => r.status)).toEqual([200, expect.any(Number), 200]);
  expect(JSON.parse(rs[0]?.body as string).id).toBe(1);
  expect(JSON.parse(rs[2]?.body as string).id).toBe(3);
  c.socket.destroy();
  // Expect: 100-continue: the interim answer comes before the body is sent.
  const e = await open();
  const b = body(9);
  e.socket.write(
    `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nexpect: 100-continue\r\ncontent-length: ${b.length}\r\n\r\n`,
  );
  await e.waitFor(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
  e.socket.write(b);
  await e.waitFor(/"id":9/);
  e.socket.destroy();
  // Chunked.
  const k = await open();
  const kb = body(11);
  k.socket.write(
    `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${kb.length.toString(16)}\r\n${kb}\r\n0\r\n\r\n`,
  );
  await k.waitFor(/"id":11/);
  k.socket.destroy();
});

test('behavior: an oversized body is refused 413 without reading it and the connection closes; a malformed request gets 400', async () => {
  const c = await open();
  c.socket.write(`POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n{"jsonrpc":`);
  await c.closed;
  const [r] = responses(c.text());
  expect(r?.status).toBe(413);
  expect(r?.body).toMatch(/too large/);
  const m = await open();
  m.socket.write('POST / HTTP/1.1\r\nhost: x\r\nbad header line\r\ncontent-length: 2\r\n\r\n{}');
  await m.closed;
  expect(m.text()).toMatch(/^HTTP\/1\.1 400/);
});

test('error: header lines node:http refuses (space before the colon, a control character, a bare LF) get its 400', async () => {
  for (const line of ['x-api-key : k\r\n', 'x-note: a\x01b\r\n', 'x-note: a\nb\r\n', ': empty-name\r\n']) {
    const c = await open();
    c.socket.write(post(body(1), line));
    await c.closed;
    expect(c.text(), JSON.stringify(line)).toMatch(/^HTTP\/1\.1 400/);
  }
});

test('behavior: the fast path trims spaces and tabs around a header value and joins a repeated header as node:http does', async () => {
  const c = await open();
  // The bypass header's value is read trimmed ("1"); a repeated header is one value joined with ", ".
  c.socket.write(post(body(7), 'x-cache-bypass: \t 1 \t\r\nx-note: a\r\nx-note: b\r\n'));
  const [r] = responses(await c.waitFor(/"id":7/));
  expect(r?.status).toBe(200);
  expect(r?.head).toMatch(/\r\nX-Cache: BYPASS\r\n/i);
  expect(JSON.parse(r?.body ?? '{}')).toMatchObject({ id: 7, result: '0x539' });
  c.socket.destroy();
});

test('behavior: a client slower than the header or request timeout gets 408 and the connection closes', async () => {
  // Header block never finished (limits.headersTimeoutMs 400).
  const h = await open();
  h.socket.write('POST / HTTP/1.1\r\nhost: x\r\n');
  const drip = setInterval(() => h.socket.writable && h.socket.write('x-a: b\r\n'), 100);
  // Headers in, body never finished (limits.requestTimeoutMs 800).
  const b = await open();
  b.socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{');
  const t0 = performance.now();
  try {
    await h.closed;
    const headerMs = performance.now() - t0;
    await b.closed;
    expect(h.text()).toMatch(/^HTTP\/1\.1 408/);
    expect(b.text()).toMatch(/^HTTP\/1\.1 408/);
    // The body's deadline counts from the request's start, longer than the header block's.
    expect(headerMs).toBeGreaterThanOrEqual(300);
  } finally {
    clearInterval(drip);
  }
});
