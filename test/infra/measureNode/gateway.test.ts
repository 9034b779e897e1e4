import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../gateway/adapters/node/server.ts';
import { buildConfig } from '../../../gateway/config/validate.ts';
import { measureNode } from '../../../infra/measureNode/measureNode.ts';
import { parseMethodSpec } from '../../../infra/measureNode/methods.ts';
import { startAnvil, type RunningAnvil } from '../support/anvil.ts';

// The seed's open question, reproduced: a node behind the xOne gateway, calls sent back to back. Do refusals by the
// rate bucket (-32005) explain the errors, and does a pause remove them? measure-node now records the reason.
let anvil: RunningAnvil;
let gateway: RunningGateway;
let url: string;

beforeAll(async () => {
  anvil = await startAnvil();
  const config = buildConfig({
    listen: { host: '127.0.0.1', port: 0 },
    admin: { host: '127.0.0.1', port: 0, token: '' },
    upstreams: [{ url: anvil.url }],
    // Anonymous callers: 4 calls per second, burst 6. The client address comes from X-Forwarded-For (trusted proxy).
    tiers: { anonymous: { ratePerSec: 4, burst: 6, denyMethods: [] }, default: { ratePerSec: 100, burst: 100, denyMethods: [] } },
    identity: { trustedProxies: ['127.0.0.1/32'] },
  });
  gateway = await startGateway(config, { sink: () => {} });
  url = `http://127.0.0.1:${gateway.port}`;
  // Until the gateway has seen the upstream's head, it answers -32002; wait for one good answer (bounded).
  for (let i = 0; i < 200; i++) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.1' },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
    });
    if (res.ok && !('error' in ((await res.json()) as object))) break;
    await new Promise((r) => setTimeout(r, 50));
  }
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await anvil?.stop();
});

const run = (client: string, pauseMs: number, calls: number) =>
  measureNode({
    url,
    windowSec: 0,
    calls,
    pauseMs,
    timeoutMs: 5_000,
    methods: [parseMethodSpec('eth_getBalance')],
    headers: { 'x-forwarded-for': client },
    sleep: async () => {},
  });

describe('measure-node through the xOne gateway', () => {
  it('behavior: back-to-back calls are refused by the rate bucket, recorded as http 429 / -32005, out of the percentiles', async () => {
    // 40 calls plus 3 identity calls against 6 tokens + 4/s: refused unless each call took over 250 ms.
    const report = await run('192.0.2.1', 0, 40);
    const m = report.before.methods[0];
    expect(m.failed).toBeGreaterThan(0);
    expect(m.failureSummary.map((f) => f.reason)).toEqual(['http 429']);
    expect(m.failures[0]).toMatchObject({ kind: 'http', httpStatus: 429, rpcCode: -32005, message: 'limit exceeded' });
    expect(m.latenciesMs).toHaveLength(m.ok);
    expect(report.before.node.clientVersion).toMatch(/^anvil\//);
  });

  it('behavior: --pause-ms below the bucket rate removes the refusals', async () => {
    const report = await run('192.0.2.2', 300, 4);
    for (const snap of [report.before, report.after]) expect(snap.methods[0]).toMatchObject({ ok: 4, failed: 0 });
  });
});
