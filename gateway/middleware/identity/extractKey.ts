/**
 * The API key a request presents, from `Authorization: Bearer`, `X-Api-Key`, or the `/v1/<key>` path segment (for
 * wallets that only take a URL). The path form is why logs never contain the URL: they carry only the key id.
 */
export function extractKey(headers: { get(name: string): string | null }, pathKey: string | undefined): string | undefined {
  const auth = headers.get('authorization');
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim();
  const x = headers.get('x-api-key');
  if (x) return x.trim();
  return pathKey || undefined;
}

/**
 * True when `origin` matches an allow-list entry: `*`, an exact origin (`https://app.example.com`), or a subdomain
 * wildcard with or without scheme (`https://*.example.com`, `*.example.com`).
 */
export function originAllowed(origin: string | null, allow: readonly string[]): boolean {
  if (!origin) return false;
  let url: URL;
  try {
    url = new URL(origin.toLowerCase());
  } catch {
    return false;
  }
  return allow.some((entry) => {
    const p = entry.toLowerCase();
    if (p === '*' || p === url.origin) return true;
    const m = /^(?:([a-z]+):\/\/)?\*(\.[^/]+)$/.exec(p);
    if (!m) return false;
    if (m[1] && `${m[1]}:` !== url.protocol) return false;
    return url.host.endsWith(m[2] as string);
  });
}
