import { createAdminApp } from '../../../gateway/admin/adminApp.ts';
import { buildConfig } from '../../../gateway/config/validate.ts';
import { createGateway } from '../../../gateway/gateway.ts';
import { KeyHasher } from '../../../gateway/keys/hash.ts';
import { KeyService } from '../../../gateway/keys/keyService.ts';
import { MemoryKeyStore } from '../../../gateway/keys/memoryKeyStore.ts';
import { noopMetrics } from '../../../gateway/metrics/types.ts';
import { webFetch } from '../../../gateway/upstream/upstream.ts';
import { SUITE_ADMIN_TOKEN, suiteConfig, type GatewayTarget } from './behaviourSuite.ts';

/** The suite's gateway on Node: createGateway with the memory seams, served in-process through app.fetch. */
export async function startNodeTarget(upstreamUrls: string[]): Promise<GatewayTarget> {
  const lines: Record<string, unknown>[] = [];
  const config = buildConfig(suiteConfig(upstreamUrls));
  const keyStore = new MemoryKeyStore();
  const gateway = createGateway(config, {
    fetch: webFetch,
    metrics: noopMetrics,
    sink: (l) => lines.push(l),
    remoteAddress: (c) => c.req.header('cf-connecting-ip'),
    keyStore,
  });
  // Probes and the head poller, as the Node server runs them (the Worker polls the head on requests instead).
  gateway.start();
  const admin = createAdminApp({
    token: SUITE_ADMIN_TOKEN,
    keys: new KeyService(keyStore, new KeyHasher(config.identity.keySecret), Object.keys(config.tiers)),
  });
  return {
    rpc: async (path, body, ip) =>
      gateway.app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'cf-connecting-ip': ip },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    get: async (path, headers = {}) => gateway.app.request(path, { headers }),
    admin: async (path, method, body) =>
      admin.request(path, {
        method,
        headers: { authorization: `Bearer ${SUITE_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    lines,
    close: () => gateway.close(),
  };
}
