import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Coalescer } from '../../gateway/cache/coalescer.ts';
import { MemoryCache } from '../../gateway/cache/memoryCache.ts';
import { GatewayError } from '../../gateway/rpc/gatewayError.ts';
import { call, post, startTestGateway, testConfig, until, type TestGateway } from './support/gateway.ts';
import { ScriptChain, startScriptedUpstream, type ScriptedUpstream } from './support/scriptedUpstream.ts';

// A scripted upstream, where the issue allows one: it injects the reorg and the slow answer coalescing needs. The
// cache against the real core (finalized by number, beyond the head, errors) is in devNode.test.ts.
// A scripted chain of 20 blocks (finalized = head − 2) behind one gateway that polls the head every 100 ms.
const chain = new ScriptChain(20, 2);
let up: ScriptedUpstream;
let g: TestGateway;
let codeDelayMs = 0;

beforeAll(async () => {
  up = await startScriptedUpstream(async (m, p) => {
    const known = chain.answer(m, p);
    if (known) return known;
    if (m === 'eth_getCode') {
      await new Promise((r) => setTimeout(r, codeDelayMs));
      return { result: `0xc0de${String(p[0]).slice(2, 6)}` };
    }
    return { result: null };
  });
  g = await startTestGateway(testConfig({ upstreams: [up.url] }));
  await until(() => g.gateway.tracker.state?.latest === 19);
});
afterAll(async () => {
  await g?.close();
  await up?.stop();
});

const block = async (n: number, headers: Record<string, string> = {}) => {
  const r = await post(g.url, call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]), headers);
  return { cache: r.headers.get('x-cache'), hash: (r.body as { result: { hash: string } | null }).result?.hash ?? null };
};

describe('finality-aware cache', () => {
  test('regression: a replaced block is never served from cache once the head tracker has seen the reorg', async () => {
    const before = await block(18);
    expect(before).toEqual({ cache: 'MISS', hash: ScriptChain.hash(18, 'a') });
    expect(await block(18)).toEqual({ cache: 'HIT', hash: ScriptChain.hash(18, 'a') });
    // The upstream reorgs blocks 18 and 19 onto fork "b"; the tracker links b-19 to its parent and walks back.
    chain.reorg(18, 'b');
    await until(() => g.gateway.tracker.hashAt(18) === ScriptChain.hash(18, 'b'));
    const after = await block(18);
    expect(after.hash).toBe(ScriptChain.hash(18, 'b'));
    expect(after.cache).toBe('MISS');
    expect(await block(18)).toEqual({ cache: 'HIT', hash: ScriptChain.hash(18, 'b') });
  });

  test('behavior: bypass header skips the cache read; eth_blockNumber answers from the shared head', async () => {
    expect((await block(3, { 'x-cache-bypass': '1' })).cache).toBe('BYPASS');
    const bn = await post(g.url, call('eth_blockNumber'));
    expect(bn.headers.get('x-cache')).toBe('HIT');
    expect(bn.body).toMatchObject({ result: '0x13' });
  });

  test('error: a value over the per-entry cap is not stored', async () => {
    const c = new MemoryCache(10, 8);
    await c.set('small', '12345678', 1000);
    await c.set('big', '123456789', 1000);
    expect(await c.get('small')).toBe('12345678');
    expect(await c.get('big')).toBeUndefined();
  });
});

describe('coalescing', () => {
  test('behavior: identical in-flight calls share one upstream request and each caller gets its own id', async () => {
    codeDelayMs = 1_000;
    const addr = '0x' + 'ab'.repeat(20);
    const c0 = up.calls.get('eth_getCode') ?? 0;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(g.url, call('eth_getCode', [addr, '0x5'], `caller-${i}`))));
    expect(answers.map((a) => (a.body as { id: string }).id)).toEqual(Array.from({ length: 8 }, (_, i) => `caller-${i}`));
    for (const a of answers) expect((a.body as { result: string }).result).toBe('0xc0deabab');
    expect((up.calls.get('eth_getCode') ?? 0) - c0).toBe(1);
    // Callers that arrived while the leader was in flight joined it; on a slow machine a late one may find the result cached.
    const joined = g.lines.filter((l) => l.method === 'eth_getCode' && (l.cache === 'coalesced' || l.cache === 'hit')).length;
    expect(joined).toBe(7);
    expect(g.lines.filter((l) => l.method === 'eth_getCode' && l.cache === 'coalesced').length).toBeGreaterThanOrEqual(1);
  });

  test('behavior: a follower keeps its own deadline without cancelling the leader', async () => {
    const co = new Coalescer<string>();
    const leader = co.run('k', 1_000, () => new Promise((r) => setTimeout(() => r('v'), 150)));
    const follower = co.run('k', 20, () => Promise.resolve('unused'));
    await expect(follower).rejects.toBeInstanceOf(GatewayError);
    await expect(leader).resolves.toEqual({ value: 'v', coalesced: false });
  });
});
