/** The HTTP transport of the real node's RPC server, on both of its POST paths, and its /health route. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { healthReport } from '../../core/rpc/health.ts';
import type { ChainView } from '../../core/rpc/interface.ts';
import { type RealNode, startRealNode } from './support/realNode.ts';

// Without CORS origins the POSTs are answered on node:http directly (core/rpc/httpPost.ts); with them, by the Hono
// app: both paths must answer alike.
describe.each([
  { path: 'the Hono app (CORS on)', cors: true },
  { path: 'the node:http fast path (no CORS)', cors: false },
])('http transport through $path', ({ cors }) => {
  let h: RealNode;
  /** The RPC clock (/health's head age): real time unless a test sets it. */
  let now: number | undefined;
  beforeAll(async () => {
    h = await startRealNode({ rpc: cors ? { corsOrigins: ['https://app.example'] } : {}, rpcClock: () => now ?? Date.now() });
    for (let i = 0; i < 3; i++) await h.mine();
  });
  afterAll(() => h?.close());

  test('default: single call answers with the same id', async () => {
    const r = await h.post({ jsonrpc: '2.0', id: 'abc', method: 'eth_blockNumber' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.json).toEqual({ jsonrpc: '2.0', id: 'abc', result: '0x3' });
  });

  test('behavior: batch keeps order, notifications get no entry, invalid members get -32600', async () => {
    const r = await h.post([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
      { jsonrpc: '2.0', method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 2, method: 'net_version' },
      1,
      { jsonrpc: '2.0', id: 3, method: 'nope_x' },
      { jsonrpc: '1.0', id: 4, method: 'eth_chainId' },
    ]);
    expect(r.json).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x539' },
      { jsonrpc: '2.0', id: 2, result: '1337' },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'the method nope_x does not exist/is not available' } },
      { jsonrpc: '2.0', id: 4, error: { code: -32600, message: 'invalid request' } },
    ]);
  });

  test('behavior: only notifications -> empty 200 body (as geth)', async () => {
    const single = await h.post({ jsonrpc: '2.0', method: 'eth_blockNumber' });
    expect([single.status, single.text]).toEqual([200, '']);
    const batch = await h.post([
      { jsonrpc: '2.0', method: 'eth_blockNumber' },
      { jsonrpc: '2.0', method: 'nope' },
    ]);
    expect([batch.status, batch.text]).toEqual([200, '']);
  });

  test('behavior: id null is a call; object ids are invalid; responses are ignored', async () => {
    expect((await h.post({ jsonrpc: '2.0', id: null, method: 'eth_chainId' })).json).toEqual({ jsonrpc: '2.0', id: null, result: '0x539' });
    expect((await h.post({ jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId' })).json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'invalid request' },
    });
    expect((await h.post([{ jsonrpc: '2.0', id: 1, result: '0x1' }])).text).toBe('');
  });

  test('error: parse error, empty batch, method missing', async () => {
    expect((await h.post('{"jsonrpc":')).json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    expect((await h.post([])).json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } });
    expect((await h.post({ jsonrpc: '2.0', id: 7 })).json).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600, message: 'invalid request' },
    });
    expect((await h.post({ jsonrpc: '2.0', id: 8, method: 'constructor' })).json).toMatchObject({ error: { code: -32601 } });
    expect((await h.post({ jsonrpc: '2.0', id: 9, method: '__proto__' })).json).toMatchObject({ error: { code: -32601 } });
  });

  test('error: wrong content type 415, other HTTP methods 405, empty GET is a ping', async () => {
    const r = await h.post('{}', { headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(415);
    expect(r.json).toMatchObject({ error: { code: -32600, message: 'invalid content type, only application/json is supported' } });
    expect((await fetch(h.url, { method: 'PUT', body: 'x' })).status).toBe(405);
    expect((await fetch(h.url)).status).toBe(200);
  });

  if (cors)
    test('behavior: CORS preflight and response headers for an allowed origin only', async () => {
      const pre = await fetch(h.url, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example');
      const ok = await h.post(
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
        { headers: { 'content-type': 'application/json', origin: 'https://app.example' } },
      );
      expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example');
      const other = await h.post(
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
        { headers: { 'content-type': 'application/json', origin: 'https://evil.example' } },
      );
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    });

  test('behavior: /health reports ok, then lagging once the head is older than maxHeadAgeSeconds (60)', async () => {
    const head = (await h.result<{ timestamp: string }>('eth_getBlockByNumber', ['latest', false])).timestamp;
    try {
      now = Number(head) * 1000 + 5000;
      const ok = await fetch(h.url + 'health');
      expect([ok.status, await ok.json()]).toEqual([200, { status: 'ok', headNumber: '0x3', headAgeSeconds: 5 }]);
      now = Number(head) * 1000 + 61_000;
      const lagging = await fetch(h.url + 'health');
      expect([lagging.status, await lagging.json()]).toEqual([503, { status: 'lagging', headNumber: '0x3', headAgeSeconds: 61 }]);
    } finally {
      now = undefined;
    }
  });

  if (!cors)
    test('behavior: no CORS headers when no origin is configured', async () => {
      const r = await h.post(
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
        { headers: { 'content-type': 'application/json', origin: 'https://app.example' } },
      );
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
    });
});

test('behavior: a syncing node reports syncing (503) whatever its head age', () => {
  // The real node's follower does not report progress to /health yet (it answers ok or lagging), so the syncing
  // branch is checked on the report itself.
  const chain = { head: () => ({ number: 3n }) } as unknown as ChainView;
  const source = (syncing: boolean) => ({ isSyncing: () => syncing, headTimestamp: () => 100n });
  expect(healthReport(source(true), chain, 60, 105_000)).toEqual({ status: 'syncing', headNumber: '0x3', headAgeSeconds: 5 });
  expect(healthReport(source(false), chain, 60, 105_000)).toEqual({ status: 'ok', headNumber: '0x3', headAgeSeconds: 5 });
});
