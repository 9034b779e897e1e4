import { createAdminApp } from '../gateway/admin/adminApp.ts';
import { KeyHasher } from '../gateway/keys/hash.ts';
import { KeyService } from '../gateway/keys/keyService.ts';
import { buildWorkerGateway, type WorkerGateway } from './buildGateway.ts';
import type { WorkerEnv } from './env.ts';
import type { ExecutionContext, WorkersCache } from './types.ts';

export { FinalCacheObject } from './objects/finalCacheObject.ts';
export { HeadObject } from './objects/headObject.ts';
export { KeyStoreObject } from './objects/keyStoreObject.ts';
export { RateBucketObject } from './objects/rateBucketObject.ts';
export { UsageObject } from './objects/usageObject.ts';

let built: { env: WorkerEnv; wg: WorkerGateway; admin: ReturnType<typeof createAdminApp> } | undefined;

/** One gateway per isolate (its L1 cache, coalescer and key cache live as long as the isolate). */
function instance(env: WorkerEnv) {
  if (built?.env !== env) {
    const wg = buildWorkerGateway(env, (globalThis as unknown as { caches: { default: WorkersCache } }).caches.default);
    const keys = new KeyService(wg.keyStore, new KeyHasher(wg.config.identity.keySecret), Object.keys(wg.config.tiers));
    built = { env, wg, admin: createAdminApp({ token: wg.config.admin.token, keys, usage: wg.gateway.usage }) };
  }
  return built;
}

/**
 * The Worker: `/admin/*` is the admin API (bearer XONE_GATEWAY_ADMIN_TOKEN); everything else is the gateway app.
 * The head is refreshed in the background of requests (ctx.waitUntil), at most once per head.pollMs per isolate, and
 * usage counts are flushed to their Durable Objects the same way.
 */
export default {
  async fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response> {
    const { wg, admin } = instance(env);
    const url = new URL(request.url);
    if (url.pathname === '/admin' || url.pathname.startsWith('/admin/')) {
      url.pathname = url.pathname.slice('/admin'.length) || '/';
      return admin.fetch(new Request(url, request));
    }
    const refresh = wg.refreshHead();
    if (refresh) ctx.waitUntil(refresh);
    const res = await wg.gateway.app.fetch(request, env, ctx);
    // Usage counts reach their Durable Object within about a second, written in this request's background.
    const flush = wg.gateway.usage.flushDue();
    if (flush) ctx.waitUntil(flush);
    return res;
  },
};
