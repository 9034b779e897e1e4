import { readFileSync } from 'node:fs';
import { Miniflare } from 'miniflare';
import { SUITE_ADMIN_TOKEN, suiteConfig, type GatewayTarget } from './behaviourSuite.ts';
import { WORKER_DURABLE_OBJECTS } from './bundle.ts';

/**
 * The suite's gateway on workerd: the bundle wrangler produced, run by Miniflare with the wrangler.jsonc bindings
 * (Durable Objects in memory, the Cache API) and the config/secrets as bindings.
 */
export async function startWorkerdTarget(upstreamUrls: string[], entry: string): Promise<GatewayTarget & { mf: Miniflare }> {
  const { upstreams, ...rest } = suiteConfig(upstreamUrls);
  const lines: Record<string, unknown>[] = [];
  const mf = new Miniflare({
    // The code is passed in, not its path: workerd refuses the bundle's source-map paths that leave its directory.
    modules: [{ type: 'ESModule', path: 'entry.js', contents: readFileSync(entry, 'utf8') }],
    compatibilityDate: '2026-04-20',
    durableObjects: WORKER_DURABLE_OBJECTS,
    // The Worker logs each call as one console JSON line; collect those (and drop them from the test output).
    handleStructuredLogs: ({ message }: { message: string }) => {
      if (!message.startsWith('{"ts"')) return;
      try {
        lines.push(JSON.parse(message) as Record<string, unknown>);
      } catch {
        // not a call line
      }
    },
    bindings: {
      GATEWAY_CONFIG: JSON.stringify(rest),
      XONE_GATEWAY_UPSTREAMS: (upstreams as string[]).join(','),
      XONE_GATEWAY_ADMIN_TOKEN: SUITE_ADMIN_TOKEN,
    },
  });
  await mf.ready;
  const base = 'http://gateway.test';
  return {
    mf,
    rpc: async (path, body, ip) =>
      (await mf.dispatchFetch(base + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'cf-connecting-ip': ip },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      })) as unknown as Response,
    get: async (path, headers = {}) => (await mf.dispatchFetch(base + path, { headers })) as unknown as Response,
    admin: async (path, method, body) =>
      (await mf.dispatchFetch(`${base}/admin${path}`, {
        method,
        headers: { authorization: `Bearer ${SUITE_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })) as unknown as Response,
    lines,
    close: () => mf.dispose(),
  };
}
