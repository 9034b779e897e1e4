import { keccak256 } from 'viem';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { call, post, startTestGateway, testConfig, until, type TestGateway } from './support/gateway.ts';
import { startScriptedUpstream, type ScriptAnswer, type ScriptedUpstream } from './support/scriptedUpstream.ts';

// Two scripted upstreams: `lead` at head 100, `behind` whose head and behaviour each test sets.
let lead: ScriptedUpstream;
let behind: ScriptedUpstream;
let behindHead = 100;
let leadFails = false;
let g: TestGateway;

const common = (m: string, head: number): ScriptAnswer | undefined => {
  if (m === 'eth_blockNumber') return { result: `0x${head.toString(16)}` };
  if (m === 'eth_syncing') return { result: false };
  return undefined;
};

beforeAll(async () => {
  lead = await startScriptedUpstream((m) => common(m, 100) ?? (leadFails ? { http: 500 } : { result: 'lead' }));
  behind = await startScriptedUpstream((m) => {
    const c = common(m, behindHead);
    if (c) return c;
    if (m === 'eth_sendRawTransaction') return { error: { code: -32000, message: 'already known' } };
    return { result: 'behind' };
  });
  g = await startTestGateway(
    testConfig({
      upstreams: [lead.url, behind.url],
      health: { intervalMs: 100, maxLagBlocks: 5 },
      cache: { enabled: false },
      // Not a rate-limit test: a bucket that never runs dry, so a fast machine's burst is not refused (-32005).
      tiers: { anonymous: { ratePerSec: 100_000, burst: 100_000 }, default: { ratePerSec: 100_000, burst: 100_000 } },
    }),
  );
});
afterAll(async () => {
  await g?.close();
  await lead?.stop();
  await behind?.stop();
});

test('behavior: an upstream lagging more than maxLagBlocks is skipped', async () => {
  behindHead = 50;
  const upstreamBehind = g.gateway.pool.upstreams[1]!;
  await until(() => g.gateway.pool.unfitReason(upstreamBehind) === 'lagging');
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(g.url, call('web3_clientVersion', [], i))));
  expect(answers.every((a) => (a.body as { result: string }).result === 'lead')).toBe(true);
  behindHead = 100;
  await until(() => g.gateway.pool.unfitReason(upstreamBehind) === undefined);
});

test('behavior: idempotent reads retry on another upstream; eth_sendRawTransaction is sent once, "already known" is success', async () => {
  leadFails = true;
  try {
    // A transaction sent to the failing upstream is not resent elsewhere: the client gets the failure.
    const raw = '0x02f86c0180843b9aca00850ba43b7400825208940000000000000000000000000000000000000001808080c0';
    const sends = await Promise.all(Array.from({ length: 4 }, (_, i) => post(g.url, call('eth_sendRawTransaction', [raw], i))));
    const total =
      lead.log.filter((c) => c.method === 'eth_sendRawTransaction').length +
      behind.log.filter((c) => c.method === 'eth_sendRawTransaction').length;
    expect(total).toBe(4);
    for (const s of sends) {
      const body = s.body as { result?: string; error?: { code: number } };
      // Either it reached `behind` ("already known" → the hash computed here) or `lead` (500 → -32002, not retried).
      if (body.result !== undefined) expect(body.result).toBe(keccak256(raw));
      else expect(body.error?.code).toBe(-32002);
    }
    // Round robin sent some to the failing upstream: those failed without being resent.
    expect(lead.log.filter((c) => c.method === 'eth_sendRawTransaction').length).toBeGreaterThanOrEqual(1);
    expect(sends.some((s) => (s.body as { error?: unknown }).error !== undefined)).toBe(true);
    const before = lead.log.length + behind.log.length;
    const reads = await Promise.all(Array.from({ length: 6 }, (_, i) => post(g.url, call('web3_clientVersion', [], i))));
    expect(reads.every((r) => (r.body as { result: string }).result === 'behind')).toBe(true);
    expect(lead.log.length + behind.log.length - before).toBeGreaterThanOrEqual(6);
  } finally {
    leadFails = false;
  }
});
