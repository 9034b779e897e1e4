import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REVERTER } from './support/chainBuilder.ts';
import { type Harness, buildChain, startHarness } from './support/harness.ts';
import { type ChainBuilder } from './support/chainBuilder.ts';

let chain: ChainBuilder;
let h: Harness;
beforeAll(async () => {
  chain = await buildChain();
  h = await startHarness(
    {
      maxBodyBytes: 2000,
      batchLimit: 3,
      batchResponseMaxBytes: 300,
      maxDepth: 8,
      callTimeoutMs: 300,
      logsMaxBlockRange: 3,
      logsMaxResults: 1,
    },
    {},
    chain,
  );
});
afterAll(() => h.close());

const call = (id: number, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

/** POSTs a chunked body (no Content-Length) with Node's http client. */
function postChunked(url: string, chunks: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('limits', () => {
  test('error: body over the limit is 413 with a JSON-RPC error, announced or chunked', async () => {
    const big = JSON.stringify(call(1, 'web3_sha3', ['0x' + 'ab'.repeat(1500)]));
    const r = await h.post(big);
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ id: null, error: { code: -32600, message: 'content length too large (>2000)' } });
    const chunked = await postChunked(h.url, [big.slice(0, 1000), big.slice(1000)]);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({ error: { code: -32600 } });
    expect((await h.call('eth_blockNumber')).result).toBe('0x3');
  });

  test('error: batch over the call limit runs nothing and names the first call id', async () => {
    const r = await h.post([
      { jsonrpc: '2.0', method: 'eth_blockNumber' },
      call(5, 'eth_chainId'),
      call(6, 'eth_chainId'),
      call(7, 'eth_chainId'),
    ]);
    expect(r.json).toEqual([{ jsonrpc: '2.0', id: 5, error: { code: -32600, message: 'batch too large' } }]);
    const ok = await h.post([call(1, 'eth_chainId'), call(2, 'eth_chainId'), call(3, 'eth_chainId')]);
    expect((ok.json as unknown[]).length).toBe(3);
  });

  test('error: batch response over the byte budget: the rest get -32003', async () => {
    const r = await h.post([call(1, 'eth_getHeaderByNumber', ['0x1']), call(2, 'eth_getHeaderByNumber', ['0x2']), call(3, 'eth_chainId')]);
    const out = r.json as { id: number; result?: unknown; error?: { code: number; message: string } }[];
    expect(out.map((o) => o.id)).toEqual([1, 2, 3]);
    expect(out[0].result).toBeDefined();
    expect(out[1].error).toEqual({ code: -32003, message: 'response too large' });
    expect(out[2].error).toEqual({ code: -32003, message: 'response too large' });
  });

  test('error: nesting deeper than maxDepth is refused before parsing', async () => {
    const r = await h.post({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [[[[[[[[[[1]]]]]]]]]] });
    expect(r.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'request nesting too deep' } });
    // Brackets inside strings do not count toward depth.
    const s = await h.post(JSON.stringify(call(2, 'web3_sha3', ['[[[[[[[[[[[[{{{{{{{{{{'])));
    expect(s.json).toMatchObject({ id: 2, error: { code: -32602 } });
  });

  test('error: a call past its deadline gets -32002 and aborts the read; the rest of its batch too', async () => {
    h.node.logsDelayMs = 200;
    try {
      const t0 = Date.now();
      const r = await h.call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x3' }]);
      expect(r.error).toEqual({ code: -32002, message: 'request timed out' });
      expect(Date.now() - t0).toBeLessThan(1000);
      const b = await h.post([call(1, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x3' }]), call(2, 'eth_chainId')]);
      expect(b.json).toEqual([
        { jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'request timed out' } },
        { jsonrpc: '2.0', id: 2, error: { code: -32002, message: 'request timed out' } },
      ]);
    } finally {
      h.node.logsDelayMs = 0;
    }
  });

  test('error: eth_getLogs range and result caps are -32005', async () => {
    expect((await h.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x3' }])).error).toEqual({
      code: -32005,
      message: 'query exceeds max block range 3',
    });
    expect((await h.call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x3' }])).error).toEqual({
      code: -32005,
      message: 'query returned more than 1 results',
    });
    expect((await h.call('eth_getLogs', [{ fromBlock: '0x3', toBlock: '0x1' }])).error).toEqual({
      code: -32000,
      message: 'invalid block range params',
    });
  });
});

describe('rate limit and shedding', () => {
  test('behavior: loopback is exempt unless includeLoopback; then 429 + Retry-After + -32005', async () => {
    const exempt = await startHarness({ rateLimit: { ratePerSecond: 1, burst: 1 } }, {}, chain);
    for (let i = 0; i < 5; i++) expect((await exempt.call('eth_chainId')).result).toBe('0x539');
    await exempt.close();
    const limited = await startHarness({ rateLimit: { ratePerSecond: 0.5, burst: 2, includeLoopback: true } }, {}, chain);
    expect((await limited.call('eth_chainId')).result).toBe('0x539');
    expect((await limited.call('eth_chainId')).result).toBe('0x539');
    const r = await limited.post(call(9, 'eth_chainId'));
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('2');
    expect(r.json).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32005, message: 'limit exceeded' } });
    const batch = await limited.post([call(10, 'eth_chainId'), call(11, 'eth_chainId')]);
    expect([batch.status, batch.json]).toEqual([429, [{ jsonrpc: '2.0', id: 10, error: { code: -32005, message: 'limit exceeded' } }]]);
    await limited.close();
  });

  test('behavior: while shedding, expensive methods get -32005 and cheap ones are served', async () => {
    let shed = true;
    const s = await startHarness({}, { shed: () => shed }, chain);
    const to = '0x' + Buffer.from(REVERTER).toString('hex');
    expect((await s.call('eth_call', [{ to }])).error).toEqual({ code: -32005, message: 'limit exceeded: node is shedding load' });
    expect((await s.call('eth_getLogs', [{}])).error?.code).toBe(-32005);
    expect((await s.call('eth_blockNumber')).result).toBe('0x3');
    shed = false;
    expect((await s.call('eth_call', [{ to }])).error?.code).toBe(3);
    await s.close();
  });
});
