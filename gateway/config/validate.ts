import { parseCidr } from '../address/ip.ts';
import { bucketProblems } from './bucketBounds.ts';
import { methodMatches } from '../methods/costs.ts';
import { isIdempotent } from '../methods/classify.ts';
import { DEFAULT_CONFIG, DEFAULT_DENY } from './defaults.ts';
import type { GatewayConfig, TierConfig, UpstreamConfig } from './types.ts';

/** Thrown when the configuration is invalid; `problems` lists every bad key, one line each. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid gateway config:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Fields whose value is a map with free-form keys (validated separately), not a fixed-shape object. */
const OPEN_MAPS = new Set(['tiers', 'rateLimit.costs']);

/** Overlays `raw` on `base` key by key, checking each leaf's type against the default's and reporting unknown keys. */
function overlay(base: unknown, raw: unknown, path: string, problems: string[]): unknown {
  if (raw === undefined) return base;
  if (OPEN_MAPS.has(path) || path === 'upstreams') return raw;
  if (isObj(base)) {
    if (!isObj(raw)) {
      problems.push(`${path}: expected an object`);
      return base;
    }
    const out: Obj = { ...base };
    for (const [k, v] of Object.entries(raw)) {
      const p = path ? `${path}.${k}` : k;
      if (!(k in base)) problems.push(`${p}: unknown key`);
      else out[k] = overlay(base[k], v, p, problems);
    }
    return out;
  }
  if (Array.isArray(base)) {
    if (!Array.isArray(raw) || !raw.every((x) => typeof x === 'string')) problems.push(`${path}: expected an array of strings`);
    return raw;
  }
  if (typeof base === 'number' && (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0))
    problems.push(`${path}: expected a number >= 0`);
  else if (typeof base !== typeof raw) problems.push(`${path}: expected a ${typeof base}`);
  return raw;
}

function checkUrl(url: unknown, path: string, protocols: string[], problems: string[]): void {
  try {
    if (typeof url !== 'string' || !protocols.includes(new URL(url).protocol)) throw new Error();
  } catch {
    problems.push(`${path}: expected a ${protocols.join(' or ')} URL`);
  }
}

function checkUpstreams(raw: unknown, problems: string[]): UpstreamConfig[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    problems.push('upstreams: expected a non-empty array of {url} (or XONE_GATEWAY_UPSTREAMS)');
    return [];
  }
  const base = { maxConcurrent: 64, maxQueued: 1024, timeoutMs: 10_000 };
  return raw.map((u, i) => {
    const one = (typeof u === 'string' ? { url: u } : u) as Obj;
    const merged = overlay({ url: '', wsUrl: '', ...base }, one, `upstreams[${i}]`, problems) as UpstreamConfig;
    checkUrl(merged.url, `upstreams[${i}].url`, ['http:', 'https:'], problems);
    if (merged.wsUrl) checkUrl(merged.wsUrl, `upstreams[${i}].wsUrl`, ['ws:', 'wss:'], problems);
    else merged.wsUrl = merged.url.replace(/^http/, 'ws');
    if (merged.maxConcurrent < 1) problems.push(`upstreams[${i}].maxConcurrent: expected >= 1`);
    return merged;
  });
}

function checkTiers(raw: unknown, problems: string[]): Record<string, TierConfig> {
  if (!isObj(raw)) {
    problems.push('tiers: expected an object of tier name -> {ratePerSec, burst, denyMethods, allowMethods?}');
    return {};
  }
  const out: Record<string, TierConfig> = {};
  for (const [name, t] of Object.entries(raw)) {
    const base = DEFAULT_CONFIG.tiers[name] ?? DEFAULT_CONFIG.tiers.default;
    const tier = overlay({ ...base }, t, `tiers.${name}`, problems) as TierConfig;
    // A tier that names a default-denied method in its own allow-list (and keeps the default deny list) means it: the
    // default entries that cover an allowed method go (the allow-list still bounds what is served).
    if (isObj(t) && Array.isArray(tier.allowMethods) && !('denyMethods' in t))
      tier.denyMethods = DEFAULT_DENY.filter((d) => !tier.allowMethods.some((a) => a !== '*' && methodMatches(a.replace(/\*$/, ''), [d])));
    // Same bounds as a key's own limits (gateway/ratelimit/bucketBounds.ts); a bad type is already reported above.
    if (typeof tier.ratePerSec === 'number' && typeof tier.burst === 'number') problems.push(...bucketProblems(tier, `tiers.${name}`));
    out[name] = tier;
  }
  for (const required of ['anonymous', 'default']) if (!out[required]) problems.push(`tiers.${required}: required`);
  return out;
}

/** The consensus and hedge sections: only reads may be asked twice, and the hedge delay bounds must make sense. */
function integrityProblems(cfg: GatewayConfig): string[] {
  const problems: string[] = [];
  const { consensus, hedge } = cfg;
  if (Array.isArray(consensus.methods))
    consensus.methods.forEach((m, i) => {
      const at = `consensus.methods[${i}]`;
      if (typeof m !== 'string' || !/^[a-z][a-zA-Z0-9]*_([a-zA-Z0-9]+|\*)$/.test(m))
        problems.push(`${at}: expected a method name or prefix_*`);
      else if (!m.endsWith('*') && (!isIdempotent(m) || /filter/i.test(m)))
        problems.push(`${at}: "${m}" may not be asked of two upstreams (not an idempotent read, or a filter call)`);
    });
  if (!['answer', 'refuse'].includes(consensus.onSingleUpstream)) problems.push('consensus.onSingleUpstream: expected answer or refuse');
  if (!(hedge.quantile > 0 && hedge.quantile < 1)) problems.push('hedge.quantile: expected a number in (0, 1)');
  if (!(hedge.maxDelayMs >= 1)) problems.push('hedge.maxDelayMs: expected >= 1');
  if (hedge.minDelayMs > hedge.maxDelayMs) problems.push('hedge.minDelayMs: expected <= hedge.maxDelayMs');
  if (!(Number.isInteger(hedge.minSamples) && hedge.minSamples >= 1)) problems.push('hedge.minSamples: expected an integer >= 1');
  return problems;
}

/**
 * Builds the configuration from a raw object (file contents with env already applied) over the defaults. Fails fast
 * with a ConfigError listing every bad key rather than the first one.
 */
export function buildConfig(raw: unknown): GatewayConfig {
  const problems: string[] = [];
  if (raw !== undefined && !isObj(raw)) throw new ConfigError(['(root): expected an object']);
  const cfg = overlay(DEFAULT_CONFIG, raw ?? {}, '', problems) as GatewayConfig;
  cfg.upstreams = checkUpstreams((raw as Obj | undefined)?.upstreams, problems);
  const costs = cfg.rateLimit.costs;
  if (!isObj(costs) || Object.values(costs).some((c) => typeof c !== 'number' || !(c >= 0)))
    problems.push('rateLimit.costs: expected method -> number >= 0');
  // A method costing more than a tier's burst is never admitted for that tier: a policy choice, not an error.
  cfg.tiers = checkTiers(cfg.tiers, problems);
  for (const scope of ['key', 'ip'] as const) {
    if (!['open', 'closed', 'local'].includes(cfg.rateLimit.failMode[scope]))
      problems.push(`rateLimit.failMode.${scope}: expected open, closed or local`);
  }
  for (const f of ['backendTimeoutMs', 'backendMaxWaitMs'] as const)
    if (!(cfg.rateLimit[f] >= 1)) problems.push(`rateLimit.${f}: expected >= 1`);
  if (!Number.isInteger(cfg.rateLimit.leaseMaxTokens) || cfg.rateLimit.leaseMaxTokens < 0)
    problems.push('rateLimit.leaseMaxTokens: expected an integer >= 0');
  if (!['memory', 'redis'].includes(cfg.rateLimit.backend)) problems.push('rateLimit.backend: expected memory or redis');
  const needsRedis = cfg.rateLimit.backend === 'redis' || cfg.cache.redis;
  if (needsRedis && !cfg.redis.url)
    problems.push('redis.url: required when rateLimit.backend is redis or cache.redis is true (or XONE_GATEWAY_REDIS_URL)');
  if (cfg.redis.url) checkUrl(cfg.redis.url, 'redis.url', ['redis:', 'rediss:'], problems);
  if (cfg.redis.url && cfg.identity.keySecret.length < 16)
    problems.push('identity.keySecret: at least 16 characters required when keys are stored in Redis (or XONE_GATEWAY_KEY_SECRET)');
  if (cfg.identity.requireKey && !cfg.redis.url) problems.push('identity.requireKey: needs redis.url (the key store)');
  cfg.identity.trustedProxies.forEach((p, i) => {
    if (!parseCidr(p)) problems.push(`identity.trustedProxies[${i}]: "${p}" is not an address or CIDR`);
  });
  if (cfg.admin.port !== 0 && cfg.admin.token.length < 16)
    problems.push('admin.token: at least 16 characters required unless admin.port is 0 (or XONE_GATEWAY_ADMIN_TOKEN)');
  if (cfg.log.successSampleRate > 1) problems.push('log.successSampleRate: expected a number in [0, 1]');
  if (cfg.limits.maxBatchSize < 1) problems.push('limits.maxBatchSize: expected >= 1');
  for (const f of [
    'headersTimeoutMs',
    'requestTimeoutMs',
    'maxConnectionsPerIp',
    'maxWsPerIp',
    'maxWsPerKey',
    'maxSubscriptionsPerWs',
    'wsSubscriptionsPerUpstreamSocket',
  ] as const)
    if (!(cfg.limits[f] >= 1)) problems.push(`limits.${f}: expected >= 1`);
  if (!(Number.isInteger(cfg.limits.getLogsSplitBlocks) && cfg.limits.getLogsSplitBlocks >= 0))
    problems.push('limits.getLogsSplitBlocks: expected an integer >= 0 (0: never split)');
  if (cfg.limits.requestTimeoutMs < cfg.limits.headersTimeoutMs)
    problems.push('limits.requestTimeoutMs: expected >= limits.headersTimeoutMs');
  problems.push(...integrityProblems(cfg));
  for (const [path, port] of [
    ['listen.port', cfg.listen.port],
    ['admin.port', cfg.admin.port],
  ] as const)
    if (typeof port === 'number' && !(Number.isInteger(port) && port <= 65_535))
      problems.push(`${path}: expected an integer port in [0, 65535]`);
  if (problems.length > 0) throw new ConfigError(problems);
  return cfg;
}
