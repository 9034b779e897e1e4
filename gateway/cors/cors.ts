import type { HeaderLookup } from '../middleware/identity/resolveIdentity.ts';

/** Response headers a browser page may read (rate-limit state, the retry hint, the request id, the cache result). */
const EXPOSED = 'RateLimit, RateLimit-Policy, Retry-After, X-Request-Id, X-Cache';
const METHODS = 'POST, GET, OPTIONS';
/** How long a browser may reuse a preflight answer. */
const MAX_AGE_SEC = '600';

/**
 * CORS for browser dapps (issue #17 item 6: OPTIONS answered 404 and no response carried Access-Control-* headers).
 * The response names the caller's own origin (never `*`, so the answer is per origin and cached with `Vary: Origin`).
 * Who may call is decided where it was before: a key's `allowOrigins` is checked against the request's `Origin` with
 * the key (resolveIdentity), so a page on an origin the key does not allow gets the 401 and no data; keyless calls are
 * the anonymous tier's from any origin, as for any other client.
 */
export function corsHeaders(headers: HeaderLookup): Record<string, string> {
  const origin = headers.get('origin');
  if (!origin) return {};
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED, Vary: 'Origin' };
}

/**
 * The answer to a preflight (OPTIONS with Access-Control-Request-Method): the methods and the request headers the
 * endpoint reads (content type, the key headers, the cache bypass header). A preflight carries no key, so it cannot be
 * refused per key: the real request is.
 */
export function preflightHeaders(headers: HeaderLookup, bypassHeader: string): Record<string, string> {
  const base = corsHeaders(headers);
  if (!base['Access-Control-Allow-Origin']) return {};
  return {
    ...base,
    'Access-Control-Allow-Methods': METHODS,
    'Access-Control-Allow-Headers': `content-type, authorization, x-api-key, ${bypassHeader}`,
    'Access-Control-Max-Age': MAX_AGE_SEC,
  };
}
