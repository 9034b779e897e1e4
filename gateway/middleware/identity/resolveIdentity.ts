import type { TierConfig } from '../../config/types.ts';
import type { Identity } from '../../env.ts';
import type { KeyVerifier } from '../../keys/keyVerifier.ts';
import { resolveClientIp } from '../../address/clientIp.ts';
import { cidrContains, ipBucket, ipForLog, parseCidr, type Cidr } from '../../address/ip.ts';
import { GatewayError } from '../../rpc/gatewayError.ts';
import { extractKey, originAllowed } from './extractKey.ts';

/** Read access to request headers by name (a WHATWG Headers object, or node:http's headers behind a getter). */
export interface HeaderLookup {
  get(name: string): string | null;
}

/** What resolving a caller needs. */
export interface IdentityOptions {
  tiers: Record<string, TierConfig>;
  /** Verifies presented keys; without it keys are not accepted (memory-only gateways serve keyless traffic). */
  verifier?: KeyVerifier;
  trustedProxies?: readonly Cidr[];
  requireKey?: boolean;
}

/**
 * Resolves who is calling: the client IP (trusted-proxy walk of X-Forwarded-For) and, when a key is presented, the
 * verified key record with its allow-lists enforced. Keyless callers get the `anonymous` tier, bucketed per IP
 * (IPv6 per /64); keyed callers get their tier, bucketed per key, with per-key limits overriding the tier's.
 * Shared by the HTTP middleware and WebSocket sessions.
 */
export async function resolveIdentity(
  headers: HeaderLookup,
  pathKey: string | undefined,
  remote: string | undefined,
  opts: IdentityOptions,
): Promise<Identity> {
  const { tiers, verifier, trustedProxies = [], requireKey = false } = opts;
  const ip = resolveClientIp(remote, headers.get('x-forwarded-for'), trustedProxies);
  const ipLog = ip ? ipForLog(ip) : 'unknown';
  const presented = extractKey(headers, pathKey);
  if (!presented) {
    if (requireKey) throw new GatewayError('unauthorized', 'unauthorized: API key required');
    const tier = tiers.anonymous as TierConfig;
    return { tierName: 'anonymous', tier, ip, ipLog, bucket: { scope: 'ip', id: ip ? ipBucket(ip) : 'unknown', params: tier } };
  }
  if (!verifier) throw new GatewayError('unauthorized', 'unauthorized: this gateway has no key store');
  const key = await verifier.verify(presented);
  if (key.allowIps?.length) {
    const cidrs = key.allowIps.map(parseCidr).filter((x): x is Cidr => x !== undefined);
    if (!ip || !cidrs.some((cidr) => cidrContains(cidr, ip)))
      throw new GatewayError('unauthorized', 'unauthorized: client address not allowed for this key');
  }
  if (key.allowOrigins?.length && !originAllowed(headers.get('origin'), key.allowOrigins)) {
    throw new GatewayError('unauthorized', 'unauthorized: origin not allowed for this key');
  }
  const tier = tiers[key.tier] ?? (tiers.default as TierConfig);
  return { key, tierName: key.tier, tier, ip, ipLog, bucket: { scope: 'key', id: key.id, params: key.limits ?? tier } };
}
