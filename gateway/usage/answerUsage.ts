import type { Identity } from '../env.ts';
import type { HeaderLookup } from '../middleware/identity/resolveIdentity.ts';
import { retryAfterSeconds } from '../middleware/rateLimit/headers.ts';
import type { RateLimiter } from '../ratelimit/types.ts';
import { RPC_ERRORS } from '../rpc/errorTable.ts';
import { GatewayError, toGatewayError } from '../rpc/gatewayError.ts';
import { parseUsageDays, usageReport } from './usageReport.ts';
import type { UsageRecorder } from './usageRecorder.ts';

/** Reads of GET /usage per key: 10 at once, then one a second (a dashboard polls every few seconds at most). */
const USAGE_BUCKET = { ratePerSec: 1, burst: 10 };

/** What answering GET /usage needs. */
export interface UsageRouteDeps {
  usage: UsageRecorder;
  limiter: RateLimiter;
  /** The same identity resolution as JSON-RPC calls (key headers or path, allowIps, allowOrigins). */
  resolve: (headers: HeaderLookup, pathKey: string | undefined, remote: string | undefined) => Promise<Identity>;
}

/** One GET /usage request. */
export interface UsageInput {
  headers: HeaderLookup;
  pathKey: string | undefined;
  remote: string | undefined;
  days: string | undefined;
}

/**
 * GET /usage (and /v1/<key>/usage): the presenting key's own usage, per UTC day and method, for the last `days`
 * days. Only with a key (the caller sees its own key's counts, nothing else); the key's IP and origin rules apply as
 * for calls, and reads have their own bucket per key (10, then 1/s), apart from the key's call budget.
 * Errors are JSON `{error: {code, message}}` with the codes of the RPC endpoint (401 -32000, 429 -32005, 400 -32602).
 */
export async function answerUsage(
  deps: UsageRouteDeps,
  input: UsageInput,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const fail = (status: number, error: { code: number; message: string; data?: unknown }, headers: Record<string, string> = {}) => ({
    status,
    headers,
    body: JSON.stringify({ error }),
  });
  try {
    const days = parseUsageDays(input.days);
    if (typeof days === 'string') return fail(400, { code: RPC_ERRORS.invalidParams.code, message: days, data: { field: 'days' } });
    const who = await deps.resolve(input.headers, input.pathKey, input.remote);
    if (!who.key) throw new GatewayError('unauthorized', 'unauthorized: GET /usage needs the API key whose usage it reports');
    // Its own small bucket: a key that spent its call budget can still read where it went.
    const bucket = { scope: who.bucket.scope, id: `${who.key.id}:usage`, params: USAGE_BUCKET };
    const charged = await deps.limiter.charge([bucket], [1]);
    if (charged.admitted === 0 && charged.denied) {
      const retryAfterMs = charged.denied.retryAfterMs;
      return fail(
        429,
        { code: RPC_ERRORS.limitExceeded.code, message: RPC_ERRORS.limitExceeded.message, data: { retryAfterMs } },
        {
          'Retry-After': retryAfterSeconds(retryAfterMs),
        },
      );
    }
    const cells = await deps.usage.read(who.key.id, days).catch(() => {
      throw new GatewayError('unavailable', 'resource unavailable: usage store unreachable', undefined, { 'Retry-After': '1' });
    });
    const report = usageReport(who.key.id, who.tierName, cells);
    return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: JSON.stringify(report) };
  } catch (err) {
    const e = toGatewayError(err);
    return fail(e.httpStatus, e.toRpc(), { ...e.headers });
  }
}
