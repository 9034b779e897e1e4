import { readFileSync } from 'node:fs';
import { Miniflare } from 'miniflare';
import { freePort } from '../../support/redis.ts';
import { WORKER_DURABLE_OBJECTS } from '../../workers/support/bundle.ts';

/** The Worker bundle in workerd (Miniflare) listening on a real 127.0.0.1 port, for clients outside the process (a browser). */
export async function startListeningWorkerd(
  entry: string,
  config: Record<string, unknown> & { upstreams: string[] },
): Promise<{ url: string; adminToken: string; close(): Promise<void> }> {
  const { upstreams, ...rest } = config;
  const adminToken = 'workerd-admin-token-0123456789';
  const port = await freePort();
  const mf = new Miniflare({
    modules: [{ type: 'ESModule', path: 'entry.js', contents: readFileSync(entry, 'utf8') }],
    compatibilityDate: '2026-04-20',
    host: '127.0.0.1',
    port,
    durableObjects: WORKER_DURABLE_OBJECTS,
    handleStructuredLogs: ({ level, message }: { level: string; message: string }) => {
      if (process.env.XONE_WORKERD_LOG && (!message.startsWith('{"ts"') || message.includes('upstream_error":"')))
        console.error(level, message);
    },
    bindings: {
      GATEWAY_CONFIG: JSON.stringify({
        identity: { keySecret: 'workerd-key-secret-0123456789abcdef' },
        health: { maxHeadAgeMs: 0 },
        ...rest,
      }),
      XONE_GATEWAY_UPSTREAMS: upstreams.join(','),
      XONE_GATEWAY_ADMIN_TOKEN: adminToken,
    },
  });
  const url = (await mf.ready).toString().replace(/\/$/, '');
  return { url, adminToken, close: () => mf.dispose() };
}
