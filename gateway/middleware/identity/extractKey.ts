/**
 * The API key a request presents, from `Authorization: Bearer`, `X-Api-Key`, or the `/v1/<key>` path segment (for
 * wallets that only take a URL). The path form is why logs never contain the URL: they carry only the key id.
 */
export function extractKey(headers: Headers, pathKey: string | undefined): string | undefined {
  const auth = headers.get('authorization');
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim();
  const x = headers.get('x-api-key');
  if (x) return x.trim();
  return pathKey || undefined;
}

/** True when `origin` matches an allow-list entry (exact, or `*.example.com` for any subdomain). */
export function originAllowed(origin: string | null, allow: readonly string[]): boolean {
  if (!origin) return false;
  const o = origin.toLowerCase();
  return allow.some((a) => {
    const p = a.toLowerCase();
    if (p === '*' || p === o) return true;
    if (!p.startsWith('*.')) return false;
    try {
      return new URL(o).hostname.endsWith(p.slice(1));
    } catch {
      return false;
    }
  });
}
