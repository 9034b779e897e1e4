import { Hono } from 'hono';
import { constantTimeEqual } from '../keys/hash.ts';
import { KeyPolicyError, type KeyService } from '../keys/keyService.ts';
import type { ApiKeyPolicy } from '../keys/types.ts';

/** What the admin app serves. */
export interface AdminDeps {
  token: string;
  keys?: KeyService;
  /** Prometheus text exposition (the Node adapter passes prom-client's registry). */
  metricsText?: () => Promise<string>;
}

const POLICY_FIELDS = ['label', 'tier', 'limits', 'allowMethods', 'denyMethods', 'allowIps', 'allowOrigins', 'expiresAt'] as const;

/**
 * The admin API, on its own port with its own bearer token (compared in constant time): key CRUD (create returns the
 * key once), revoke, rotate with an overlap window, and /metrics. GET /health needs no token.
 */
export function createAdminApp({ token, keys, metricsText }: AdminDeps): Hono {
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
    app.post('/keys', async (c) => {
      const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
      const policy: Partial<ApiKeyPolicy> = {};
      for (const f of POLICY_FIELDS) if (body[f] !== undefined) (policy as Record<string, unknown>)[f] = body[f];
      return c.json(await keys.create(policy), 201);
    });
    app.post('/keys/:id/revoke', async (c) => c.json(await keys.revoke(c.req.param('id'))));
    app.post('/keys/:id/rotate', async (c) => {
      const body = (await c.req.json().catch(() => ({}))) as { overlapSec?: number };
      return c.json(await keys.rotate(c.req.param('id'), (body.overlapSec ?? 86_400) * 1000));
    });
  }
  app.onError((err, c) => (err instanceof KeyPolicyError ? c.json({ error: err.message }, 400) : c.json({ error: 'internal error' }, 500)));
  return app;
}
