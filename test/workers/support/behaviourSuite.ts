import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ScriptChain, startScriptedUpstream, type ScriptedUpstream } from '../../gateway/support/scriptedUpstream.ts';

/** A gateway under test, whatever runs it: a fetch to its public app and one to its admin API. */
export interface GatewayTarget {
  /** `path` is `/` or `/v1/<key>`; `ip` becomes CF-Connecting-IP (the client address on Workers). */
  rpc(path: string, body: unknown, ip: string): Promise<Response>;
  /** A GET to the public app (`/health`), with optional headers. */
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** Admin API call (`/keys`, `/keys/:id/revoke`), bearer token already set. */
  admin(path: string, method: string, body?: unknown): Promise<Response>;
  /** The per-call log lines the gateway wrote so far (Node: its sink; workerd: console JSON). */
  lines: Record<string, unknown>[];
  close(): Promise<void>;
}

/** The one gateway config the suite runs against (raw, as a config file or GATEWAY_CONFIG holds it). */
export function suiteConfig(upstreamUrls: string[]): Record<string, unknown> {
  return {
    // u0 refuses connections (nothing listens on port 1): idempotent calls fail over to u1 (and u2, when given).
    upstreams: ['http://127.0.0.1:1', ...upstreamUrls],
    admin: { token: SUITE_ADMIN_TOKEN },
    identity: { keySecret: 'suite-key-secret-0123456789abcdef', keyCacheTtlMs: 1_000, negativeKeyCacheTtlMs: 500 },
    limits: { maxBatchSize: 50 },
    tiers: {
      anonymous: { ratePerSec: 0.01, burst: 5, denyMethods: ['debug_*'] },
      default: { ratePerSec: 0.01, burst: 8, denyMethods: [] },
    },
    health: { maxHeadAgeMs: 0 },
    log: { successSampleRate: 1 },
  };
}

/** Admin token of the suite's config. */
export const SUITE_ADMIN_TOKEN = 'suite-admin-token-0123456789';

const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });
const batch = (n: number, offset = 0) => Array.from({ length: n }, (_, i) => call('eth_chainId', [], offset + i));
type RpcAnswer = { id: unknown; result?: unknown; error?: { code: number; data?: Record<string, unknown> } };

/** The fields of a per-call log line (docs/gateway.md "Logs"), the same on every runtime. */
const LOG_FIELDS = [
  'ts',
  'request_id',
  'batch_index',
  'key_id',
  'ip',
  'method',
  'params_hash',
  'block_ref',
  'cache',
  'limiter',
  'upstream',
  'upstream_status',
  'upstream_error',
  'rpc_error_code',
  'rpc_error_message',
  'http_status',
  'latency_ms_total',
  'latency_ms_upstream',
  'bytes_in',
  'bytes_out',
];

async function waitFor<T>(fn: () => T | undefined, ms = 3_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The gateway behaviour suite, written once: `start` builds the runtime under test (Node in-process, or workerd
 * through Miniflare) against the scripted upstreams' URLs (after the dead u0). Every test uses its own client
 * address, so buckets do not interfere.
 */
export function gatewayBehaviourSuite(start: (upstreamUrls: string[]) => Promise<GatewayTarget>): void {
  let up: ScriptedUpstream;
  let gw: GatewayTarget;
  const chain = new ScriptChain(20);
  beforeAll(async () => {
    up = await startScriptedUpstream((m, p) => {
      if (m === 'eth_newBlockFilter') return { result: '0xabc123' };
      if (m === 'eth_getFilterChanges')
        return p[0] === '0xabc123' ? { result: [] } : { error: { code: -32000, message: 'filter not found' } };
      return chain.answer(m, p) ?? { result: `echo:${m}` };
    });
    gw = await start([up.url]);
  });
  afterAll(async () => {
    await gw?.close();
    await up?.stop();
  });
  const rpc = async (body: unknown, ip: string, path = '/') => {
    const res = await gw.rpc(path, body, ip);
    return { res, body: (await res.json()) as RpcAnswer | RpcAnswer[] };
  };

  test('behavior: keyless burst is served, then refused whole with 429, Retry-After and -32005', async () => {
    const first = await rpc(batch(5), '10.1.0.1');
    expect(first.res.status).toBe(200);
    expect((first.body as RpcAnswer[]).every((x) => x.result === '0x1' || typeof x.result === 'string')).toBe(true);
    const refused = await rpc(call('eth_chainId'), '10.1.0.1');
    expect(refused.res.status).toBe(429);
    expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body).toMatchObject({ error: { code: -32005, data: { scope: 'ip', limit: 5 } } });
    // Another address has its own bucket.
    expect((await rpc(call('eth_chainId'), '10.1.0.2')).res.status).toBe(200);
  });

  test('behavior: a batch is charged per call; the overflow is answered in place with -32005', async () => {
    expect((await rpc(batch(3), '10.2.0.1')).res.status).toBe(200);
    const second = await rpc(batch(4, 10), '10.2.0.1');
    expect(second.res.status).toBe(200);
    const body = second.body as RpcAnswer[];
    expect(body.map((x) => x.id)).toEqual([10, 11, 12, 13]);
    expect(body.filter((x) => x.result !== undefined)).toHaveLength(2);
    expect(body.slice(2).every((x) => x.error?.code === -32005 && x.error.data?.scope === 'ip')).toBe(true);
  });

  test('behavior: denied method is -32004 and not charged', async () => {
    const r = await rpc([call('debug_traceTransaction', [], 'a'), call('eth_chainId', [], 'b')], '10.3.0.1');
    const body = r.body as RpcAnswer[];
    expect(body[0]?.error?.code).toBe(-32004);
    expect(body[1]?.result).toBeDefined();
  });

  test('behavior: a key from the admin API is accepted with its own bucket; unknown keys are 401; revocation bites within seconds', async () => {
    const created = await gw.admin('/keys', 'POST', { label: 'suite', tier: 'default' });
    expect(created.status).toBe(201);
    const { key, record } = (await created.json()) as { key: string; record: { id: string; hash?: string } };
    expect(record.hash).toBeUndefined();
    const ok = await rpc(batch(8), '10.4.0.1', `/v1/${key}`);
    expect(ok.res.status).toBe(200);
    const over = await rpc(call('eth_chainId'), '10.4.0.1', `/v1/${key}`);
    expect(over.body).toMatchObject({ error: { code: -32005, data: { scope: 'key', limit: 8 } } });
    const bogus = await rpc(call('eth_chainId'), '10.4.0.1', `/v1/${key.slice(0, -4)}AAAA`);
    expect(bogus.res.status).toBe(401);
    expect(bogus.body).toMatchObject({ error: { code: -32000 } });

    const second = (await (await gw.admin('/keys', 'POST', { tier: 'default' })).json()) as { key: string; record: { id: string } };
    expect((await rpc(call('eth_chainId'), '10.4.0.2', `/v1/${second.key}`)).res.status).toBe(200);
    expect((await gw.admin(`/keys/${second.record.id}/revoke`, 'POST')).status).toBe(200);
    const t0 = Date.now();
    for (;;) {
      const r = await rpc(call('eth_chainId'), '10.4.0.2', `/v1/${second.key}`);
      if (r.res.status === 401) break;
      expect(Date.now() - t0).toBeLessThan(5_000);
      await new Promise((res) => setTimeout(res, 100));
    }
    const listed = (await (await gw.admin('/keys', 'GET')).json()) as { id: string; disabled: boolean }[];
    expect(listed.find((k) => k.id === second.record.id)?.disabled).toBe(true);
    expect((await gw.admin('/keys', 'GET').then((r) => r.text())).includes(second.key)).toBe(false);
  });

  test('error: the admin API refuses bad key policies with a 400 naming the field, and creates nothing (issue #17 item 1)', async () => {
    const count = async () => ((await (await gw.admin('/keys', 'GET')).json()) as unknown[]).length;
    const before = await count();
    const bad: [unknown, string][] = [
      [{ limits: { ratePerSec: 0, burst: 0 } }, 'limits.ratePerSec'],
      [{ limits: { ratePerSec: 'abc', burst: 10 } }, 'limits.ratePerSec'],
      [{ limits: { ratePerSec: -1, burst: 1e9 } }, 'limits.ratePerSec'],
      [{ limits: { ratePerSec: 5, burst: 10, extra: 1 } }, 'limits.extra'],
      [{ tier: 'gold' }, 'tier'],
    ];
    for (const [body, field] of bad) {
      const res = await gw.admin('/keys', 'POST', body);
      const answer = (await res.json()) as { error: string; field: string };
      expect([res.status, answer.field], JSON.stringify(body)).toEqual([400, field]);
    }
    expect(await count()).toBe(before);
  });

  test('behavior: static and realtime answers are cached (the upstream sees one call each)', async () => {
    const before = up.calls.get('net_version') ?? 0;
    const a = await rpc(call('net_version'), '10.5.0.1');
    const b = await rpc(call('net_version', [], 2), '10.5.0.1');
    expect(a.body).toMatchObject({ result: 'echo:net_version' });
    expect(b.body).toMatchObject({ id: 2, result: 'echo:net_version' });
    expect((up.calls.get('net_version') ?? 0) - before).toBe(1);
    const g0 = up.calls.get('eth_gasPrice') ?? 0;
    await rpc(call('eth_gasPrice'), '10.5.0.2');
    await rpc(call('eth_gasPrice'), '10.5.0.2');
    expect((up.calls.get('eth_gasPrice') ?? 0) - g0).toBe(1);
  });

  test('behavior: a dead upstream is failed over; one log line per call in the shared schema, no key in it', async () => {
    const r = await rpc([call('eth_estimateGas', [{ to: '0x01' }], 'x'), call('eth_estimateGas', [{ to: '0x02' }], 'y')], '10.7.0.1');
    expect((r.body as RpcAnswer[]).map((x) => x.result)).toEqual(['echo:eth_estimateGas', 'echo:eth_estimateGas']);
    const lines = await waitFor(() => {
      const found = gw.lines.filter((l) => l.method === 'eth_estimateGas');
      return found.length === 2 ? found : undefined;
    });
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual([...LOG_FIELDS].sort());
      expect(line).toMatchObject({
        upstream: 'u1',
        upstream_status: 200,
        http_status: 200,
        ip: '10.7.0.0/24',
        limiter: { decision: 'allow', scope: 'ip', cost: 2 },
      });
    }
    expect(JSON.stringify(gw.lines)).not.toMatch(/xk_[0-9a-f]{12}_/);
  });

  test('behavior: methods outside the default allow-list are -32004 and never reach the upstream (issue #17 item 12)', async () => {
    const refused = ['engine_getPayloadV1', 'clique_getSigners', 'eth_sendTransaction', 'admin_peers', 'evm_mine'];
    const r = await rpc(
      refused.map((m, i) => call(m, [], i)),
      '10.8.0.1',
    );
    expect((r.body as RpcAnswer[]).map((x) => x.error?.code)).toEqual(refused.map(() => -32004));
    expect(up.log.filter((c) => refused.includes(c.method))).toEqual([]);
  });

  test('behavior: /health tells anonymous callers only ok and head; the admin token shows the upstreams', async () => {
    const anon = await gw.get('/health');
    const text = await anon.text();
    expect(text).not.toMatch(/u0|u1|upstream/);
    expect(JSON.parse(text)).toHaveProperty('ok');
    const operator = (await (await gw.get('/health', { authorization: `Bearer ${SUITE_ADMIN_TOKEN}` })).json()) as {
      upstreams: { name: string }[];
    };
    expect(operator.upstreams.map((u) => u.name)).toEqual(['u0', 'u1']);
  });

  test('behavior: a filter id names the upstream that holds it; polls go there (issue #17 item 5)', async () => {
    const created = (await rpc(call('eth_newBlockFilter'), '10.9.0.1')).body as RpcAnswer;
    // u0 is dead, u1 (index 1) made the filter: its id carries that index in front of the upstream's own id.
    expect(created.result, JSON.stringify(created)).toBe('0x01abc123');
    for (let i = 0; i < 3; i++)
      expect((await rpc(call('eth_getFilterChanges', [created.result], i), '10.9.0.1')).body).toMatchObject({ result: [] });
    expect(up.log.filter((c) => c.method === 'eth_getFilterChanges').every((c) => c.params[0] === '0xabc123')).toBe(true);
    expect((await rpc(call('eth_getFilterChanges', ['0x00abc123']), '10.9.0.1')).body).toMatchObject({
      error: { code: -32000, message: 'filter not found' },
    });
  });

  test('error: malformed JSON is -32700 and an empty batch -32600', async () => {
    expect((await rpc('{nope', '10.6.0.1')).body).toMatchObject({ error: { code: -32700 } });
    const empty = await rpc([], '10.6.0.1');
    expect(empty.res.status).toBe(400);
    expect(empty.body).toMatchObject({ error: { code: -32600 } });
  });

  laggingFollowerCase(start);
}

/**
 * Issue #17 item 2 on every runtime: `latest` state calls are pinned to the newest head's hash, and a follower two
 * blocks behind (still within maxLagBlocks, so routable) answers `header for hash not found` for it, as geth and the
 * core do. No client may see that answer: the call goes to an upstream known to hold the block, or is retried on one.
 */
function laggingFollowerCase(start: (upstreamUrls: string[]) => Promise<GatewayTarget>): void {
  describe('with a lagging follower', () => {
    let producer: ScriptedUpstream;
    let follower: ScriptedUpstream;
    let gw: GatewayTarget;
    const ahead = new ScriptChain(20);
    const behind = new ScriptChain(18);
    const balance = (chain: ScriptChain) => (m: string, p: unknown[]) => {
      if (m !== 'eth_getBalance') return chain.answer(m, p) ?? { result: `echo:${m}` };
      const at = p[1] as string | { blockHash?: string };
      const hash = typeof at === 'object' ? at.blockHash : undefined;
      if (hash !== undefined && !chain.hashes.includes(hash)) return { error: { code: -32000, message: 'header for hash not found' } };
      return { result: '0x1' };
    };
    beforeAll(async () => {
      producer = await startScriptedUpstream(balance(ahead));
      follower = await startScriptedUpstream(balance(behind));
      gw = await start([producer.url, follower.url]);
    });
    afterAll(async () => {
      await gw?.close();
      await follower?.stop();
      await producer?.stop();
    });
    const newest = ScriptChain.hash(19, 'a');
    const pinnedToNewest = (u: ScriptedUpstream) =>
      u.log.filter((c) => c.method === 'eth_getBalance' && (c.params[1] as { blockHash?: string })?.blockHash === newest).length;

    test('behavior: eth_getBalance(latest) pinned to a block the follower lacks is never answered "not found" (issue #17 item 2)', async () => {
      const answers: unknown[] = [];
      // Each call from its own address (the anonymous burst is 5) and for its own account (no cache hit, no coalescing).
      const ask = async (i: number) => {
        const addr = `0x${(i + 1).toString(16).padStart(40, '0')}`;
        const res = await gw.rpc('/', call('eth_getBalance', [addr, 'latest'], i), `10.20.${Math.floor(i / 200)}.${(i % 200) + 1}`);
        answers.push(await res.json());
      };
      // Until the gateway pins to the producer's head (it learns it from a head poll), then 60 more.
      let i = 0;
      // A give-up bound, not a speed check: on a loaded CI host the first head poll can come late.
      const end = Date.now() + 60_000;
      while (pinnedToNewest(producer) === 0 && Date.now() < end) await ask(i++);
      expect(pinnedToNewest(producer), 'the gateway never pinned a call to the newest head').toBeGreaterThan(0);
      await Promise.all(Array.from({ length: 60 }, (_, k) => ask(i + k)));
      const wrong = answers.filter((a) => (a as RpcAnswer).result !== '0x1');
      expect(wrong, JSON.stringify(wrong.slice(0, 3))).toEqual([]);
    }, 120_000);
  });
}
