import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { Http1Pool } from '../../gateway/adapters/node/http1Client.ts';
import { createNodeFetch } from '../../gateway/adapters/node/nodeFetch.ts';

/**
 * The upstream HTTP/1.1 client against real sockets on 127.0.0.1: a raw TCP server writes exactly the bytes each case
 * needs (split packets, chunked bodies, interim answers, early closes), and a node:http server checks keep-alive.
 */
const servers: Server[] = [];
const pools: Http1Pool[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A raw server: `onRequest` gets the socket and each complete request's body (requests are read by Content-Length). */
async function rawServer(onRequest: (socket: Socket, body: string, n: number) => void): Promise<number> {
  let n = 0;
  const server = createServer((socket) => {
    let buf = '';
    socket.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        const body = buf.slice(end + 4, end + 4 + length);
        buf = buf.slice(end + 4 + length);
        onRequest(socket, body, n++);
      }
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

const pool = (port: number, max = 4, idleMs = 4_000) => {
  const p = new Http1Pool('127.0.0.1', port, `127.0.0.1:${port}`, max, idleMs);
  pools.push(p);
  return p;
};
const post = (p: Http1Pool, body = '{}', timeoutMs = 2_000) => p.post('/', { 'content-type': 'application/json' }, body, timeoutMs);

test('behavior: a Content-Length answer split across packets, a chunked one with trailers, and 100 Continue before an answer', async () => {
  const port = await rawServer((s, body, n) => {
    if (n === 0) {
      s.write('HTTP/1.1 200 OK\r\nContent-Le');
      setTimeout(() => s.write('ngth: 11\r\nX-A: 1\r\n\r\n{"a":'), 20);
      setTimeout(() => s.write(`${body}}`), 40);
    } else if (n === 1) {
      s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nRetry-After: 3\r\n\r\n4\r\n{"b"\r\n');
      setTimeout(() => s.write('6;ext=1\r\n:"é"}\r\n0\r\nX-Trailer: t\r\n\r\n'), 20);
    } else s.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 503 Service Unavailable\r\nContent-Length: 2\r\n\r\nno');
  });
  const p = pool(port, 1);
  const a = await post(p, '"xyz"');
  expect(a).toMatchObject({ status: 200, body: '{"a":"xyz"}' });
  expect(a.headers.get('x-a')).toBe('1');
  const b = await post(p);
  expect(b.status).toBe(200);
  expect(b.body).toBe('{"b":"é"}');
  expect(b.headers.get('retry-after')).toBe('3');
  expect(await post(p)).toMatchObject({ status: 503, body: 'no' });
});

test('behavior: keep-alive reuses one socket for sequential calls; beyond the connection limit calls wait their turn', async () => {
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    sockets.add(req.socket);
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => setTimeout(() => res.end(body), 5));
  });
  servers.push(server as unknown as Server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const p = pool((server.address() as AddressInfo).port, 2);
  for (let i = 0; i < 5; i++) expect((await post(p, `${i}`)).body).toBe(`${i}`);
  expect(sockets.size).toBe(1);
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => post(p, `${i}`)));
  expect(answers.map((a) => a.body)).toEqual(Array.from({ length: 10 }, (_, i) => `${i}`));
  expect(sockets.size).toBe(2);
});

test('behavior: an answer cut short is a SocketError, a silent upstream a TimeoutError, a body to the end of the connection is complete', async () => {
  const port = await rawServer((s, _body, n) => {
    if (n === 0) s.end('HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"partial"');
    else if (n === 1) return;
    else s.end('HTTP/1.0 200 OK\r\n\r\n{"until":"close"}');
  });
  const p = pool(port, 1);
  await expect(post(p)).rejects.toMatchObject({ name: 'SocketError' });
  await expect(post(p, '{}', 100)).rejects.toMatchObject({ name: 'TimeoutError' });
  expect(await post(p)).toMatchObject({ status: 200, body: '{"until":"close"}' });
  // Connection: close is honoured: the next call opens a new connection and still works.
  expect(await post(p)).toMatchObject({ status: 200 });
});

test('behavior: a refused connection keeps its ECONNREFUSED code (the pool may send even a transaction elsewhere)', async () => {
  const port = await rawServer(() => undefined);
  await new Promise((r) => (servers.pop() as Server).close(r));
  await expect(post(pool(port))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
});

test('behavior: a socket the server closed while idle is not reused, and the Keep-Alive timeout hint shortens the idle time', async () => {
  const opened: Socket[] = [];
  const server = createServer((socket) => {
    opened.push(socket);
    socket.on('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 2\r\n\r\nok');
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const p = pool(port, 1, 60_000);
  expect((await post(p)).body).toBe('ok');
  opened[0]?.destroy();
  await new Promise((r) => setTimeout(r, 50));
  expect((await post(p)).body).toBe('ok');
  expect(opened.length).toBe(2);
  // timeout=1 s: the client keeps it idle at most 0 s (1 s minus a margin), so the next call uses a third socket.
  await new Promise((r) => setTimeout(r, 300));
  expect((await post(p)).body).toBe('ok');
  expect(opened.length).toBe(3);
});

test('behavior: createNodeFetch speaks to plain-http upstreams through the HTTP/1.1 client (status, text, headers)', async () => {
  const port = await rawServer((s, body) =>
    s.write(`HTTP/1.1 429 Too Many\r\nRetry-After: 7\r\nContent-Length: ${body.length}\r\n\r\n${body}`),
  );
  const f = createNodeFetch(2);
  try {
    const r = await f(`http://127.0.0.1:${port}/rpc?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[1]',
      timeoutMs: 1_000,
    });
    expect(r.status).toBe(429);
    expect(await r.text()).toBe('[1]');
    expect(r.headers.get('Retry-After')).toBe('7');
  } finally {
    await f.close();
  }
});
