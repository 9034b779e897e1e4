import { Hono } from 'hono';
import { constantTimeEqual } from '../keys/hash.ts';
import type { KeyService } from '../keys/keyService.ts';
import { KeyStoreUnavailableError } from '../keys/types.ts';
import { KeyPolicyError } from '../keys/validatePolicy.ts';
import { parseUsageDays, usageReport } from '../usage/usageReport.ts';
import type { UsageRecorder } from '../usage/usageRecorder.ts';

/** What the admin app serves. */
export interface AdminDeps {
  token: string;
  keys?: KeyService;
  /** Prometheus text exposition (the Node adapter passes prom-client's registry). */
  metricsText?: () => Promise<string>;
  /** Per-key usage (GET /keys/:id/usage). */
  usage?: UsageRecorder;
}

/** The longest overlap a rotation may ask for (a year): longer is a typo, not a policy. */
const MAX_OVERLAP_SEC = 365 * 86_400;

/** The JSON body of an admin call: empty is `{}`, anything that is not a JSON object is a 400 naming the body. */
async function jsonBody(req: Request): Promise<Record<string, unknown>> {
  const text = await req.text();
  if (text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new KeyPolicyError('(body): not valid JSON', '(body)');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new KeyPolicyError('(body): expected a JSON object', '(body)');
  return v as Record<string, unknown>;
}

/**
 * The admin API, on its own port with its own bearer token (compared in constant time): key CRUD (create returns the
 * key once), revoke, rotate with an overlap window, and /metrics. GET /health needs no token.
 */
export function createAdminApp({ token, keys, metricsText, usage }: AdminDeps): Hono {
  const app = new Hono();
  app.get('/health', (c) => c.json({ ok: true }));
  app.use('*', async function adminAuth(c, next) {
    const presented = (c.req.header('authorization') ?? '').replace(/^bearer\s+/i, '');
    if (!token || !constantTimeEqual(presented, token)) return c.json({ error: 'unauthorized' }, 401);
    await next();
  });
  app.get('/metrics', async (c) => c.text(metricsText ? await metricsText() : '', 200, { 'content-type': 'text/plain; version=0.0.4' }));
  if (keys) {
    app.get('/keys', async (c) => c.json(await keys.list()));
    // Every field is validated (types, ranges, unknown fields) by KeyService: a 400 names the first bad one.
    app.post('/keys', async (c) => c.json(await keys.create(await jsonBody(c.req.raw)), 201));
    if (usage) {
      // Any key's usage, revoked ones included (billing outlives the key); the same report the key holder gets.
      app.get('/keys/:id/usage', async (c) => {
        const days = parseUsageDays(c.req.query('days'));
        if (typeof days === 'string') throw new KeyPolicyError(days, 'days');
        const record = (await keys.list()).find((k) => k.id === c.req.param('id'));
        if (!record) throw new KeyPolicyError(`id: no key ${c.req.param('id').slice(0, 64)}`, 'id');
        return c.json(usageReport(record.id, record.tier, await usage.read(record.id, days)));
      });
    }
    app.post('/keys/:id/revoke', async (c) => c.json(await keys.revoke(c.req.param('id'))));
    app.post('/keys/:id/rotate', async (c) => {
      const body = await jsonBody(c.req.raw);
      for (const k of Object.keys(body)) if (k !== 'overlapSec') throw new KeyPolicyError(`${k}: unknown field`, k);
      const overlap = body.overlapSec ?? 86_400;
      if (typeof overlap !== 'number' || !Number.isFinite(overlap) || overlap < 0 || overlap > MAX_OVERLAP_SEC)
        throw new KeyPolicyError(`overlapSec: expected a number of seconds in [0, ${MAX_OVERLAP_SEC}]`, 'overlapSec');
      return c.json(await keys.rotate(c.req.param('id'), overlap * 1000));
    });
  }
  app.onError((err, c) => {
    // Redis down or too slow: the operator learns why, and that a retry may work.
    if (err instanceof KeyStoreUnavailableError) return c.json({ error: err.message }, 503, { 'retry-after': '1' });
    if (!(err instanceof KeyPolicyError)) return c.json({ error: 'internal error' }, 500);
    return c.json({ error: err.message, field: err.field ?? null }, err.field === 'id' ? 404 : 400);
  });
  return app;
}
