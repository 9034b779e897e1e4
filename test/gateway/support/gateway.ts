import { startGateway, type RunningGateway } from '../../../gateway/adapters/node/server.ts';
import { buildConfig } from '../../../gateway/config/validate.ts';
import type { GatewayConfig } from '../../../gateway/config/types.ts';

/** A gateway under test plus the log lines it wrote. */
export interface TestGateway extends RunningGateway {
  url: string;
  adminUrl: string;
  lines: Record<string, unknown>[];
}

/** Admin token used by test gateways. */
export const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** Key secret used by test gateways. */
export const KEY_SECRET = 'test-key-secret-0123456789abcdef';

/** A config for tests: free ports, fast probes, everything logged; `raw` overrides (deep for objects given). */
export function testConfig(raw: Record<string, unknown>): GatewayConfig {
  const base = {
    listen: { host: '127.0.0.1', port: 0 },
    admin: { host: '127.0.0.1', port: 0, token: ADMIN_TOKEN },
    identity: { keySecret: KEY_SECRET },
    health: { intervalMs: 200, maxHeadAgeMs: 0 },
    head: { pollMs: 100 },
    log: { successSampleRate: 1 },
  };
  const merged: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(raw)) {
    const b = (base as Record<string, unknown>)[k];
    merged[k] = b && typeof b === 'object' && !Array.isArray(b) && v && typeof v === 'object' && !Array.isArray(v) ? { ...b, ...v } : v;
  }
  return buildConfig(merged);
}

/** Starts a gateway on free ports collecting its log lines. */
export async function startTestGateway(config: GatewayConfig, opts: { start?: boolean; honoOnly?: boolean } = {}): Promise<TestGateway> {
  const lines: Record<string, unknown>[] = [];
  const running = await startGateway(config, { sink: (l) => lines.push(l), start: opts.start, honoOnly: opts.honoOnly });
  return { ...running, url: `http://127.0.0.1:${running.port}`, adminUrl: `http://127.0.0.1:${running.adminPort}`, lines };
}

/** POSTs a JSON-RPC body; returns status, headers and parsed body. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** A JSON-RPC call object. */
export const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });

/** Waits until `fn` returns truthy (bounded). */
export async function until<T>(fn: () => T | Promise<T>, ms = 5_000, step = 20): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, step));
  }
}
