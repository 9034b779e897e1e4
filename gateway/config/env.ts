/** Environment variables the gateway reads, and the config path each one sets. Env wins over the config file. */
export const ENV_KEYS: Record<string, { path: string; kind: 'string' | 'number' | 'list' }> = {
  XONE_GATEWAY_HOST: { path: 'listen.host', kind: 'string' },
  XONE_GATEWAY_PORT: { path: 'listen.port', kind: 'number' },
  XONE_GATEWAY_ADMIN_PORT: { path: 'admin.port', kind: 'number' },
  XONE_GATEWAY_ADMIN_TOKEN: { path: 'admin.token', kind: 'string' },
  XONE_GATEWAY_KEY_SECRET: { path: 'identity.keySecret', kind: 'string' },
  XONE_GATEWAY_REDIS_URL: { path: 'redis.url', kind: 'string' },
  XONE_GATEWAY_UPSTREAMS: { path: 'upstreams', kind: 'list' },
  XONE_GATEWAY_RATELIMIT_BACKEND: { path: 'rateLimit.backend', kind: 'string' },
};

/**
 * Applies env overrides to a raw config object (a copy is returned). Takes the env as a plain map so the Workers
 * entry can pass its bindings; a number that does not parse is passed through as a string so validation names it.
 */
export function applyEnv(raw: Record<string, unknown>, env: Record<string, string | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(raw);
  for (const [name, { path, kind }] of Object.entries(ENV_KEYS)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const parts = path.split('.');
    let node = out;
    for (const p of parts.slice(0, -1)) {
      if (typeof node[p] !== 'object' || node[p] === null) node[p] = {};
      node = node[p] as Record<string, unknown>;
    }
    const last = parts[parts.length - 1] as string;
    node[last] = kind === 'number' && /^\d+$/.test(value) ? Number(value) : kind === 'list' ? value.split(',').map((s) => s.trim()) : value;
  }
  return out;
}
