import { USAGE_PAGE_CSS, USAGE_PAGE_HTML, USAGE_PAGE_ICON } from './usagePageHtml.ts';
import { USAGE_PAGE_SCRIPT } from './usagePageScript.ts';

/** One static answer of the usage page. */
export interface PageAsset {
  headers: Record<string, string>;
  body: string;
}

/**
 * The page runs only its own script and reaches only its own origin; the key in a `/v1/<key>/dashboard` URL is never
 * sent on as a Referer; the page cannot be framed (a frame could read what the key holder types).
 */
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

/** The page (at /dashboard and /v1/<key>/dashboard: the same bytes, never stored by caches since its URL may hold a key). */
export const USAGE_PAGE: PageAsset = {
  headers: { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' },
  body: USAGE_PAGE_HTML,
};

/** Its script and styles (key-free URLs: /dashboard/usage.js, /dashboard/usage.css). */
export const USAGE_PAGE_FILES: Record<string, PageAsset> = {
  'usage.js': {
    headers: { ...PAGE_HEADERS, 'content-type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=300' },
    body: USAGE_PAGE_SCRIPT,
  },
  'usage.css': {
    headers: { ...PAGE_HEADERS, 'content-type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=300' },
    body: USAGE_PAGE_CSS,
  },
  'favicon.svg': {
    headers: { ...PAGE_HEADERS, 'content-type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400' },
    body: USAGE_PAGE_ICON,
  },
};
