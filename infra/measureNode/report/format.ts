/** Number formatting shared by the Markdown and HTML reports (decimal MB, as the seed's tables). */

/** Milliseconds with two decimals, or an en dash when there is no value (no successful call). */
export function fmtMs(ms: number | null): string {
  return ms === null ? '–' : ms.toFixed(2);
}

/** Bytes as decimal MB with one decimal (`96.0 MB`), or plain bytes below 100 kB. */
export function fmtBytes(bytes: number | null): string {
  if (bytes === null) return '–';
  if (Math.abs(bytes) < 100_000) return `${fmtInt(bytes)} bytes`;
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Integer with thousands separators (`187,668`). */
export function fmtInt(n: number | null): string {
  return n === null ? '–' : Math.round(n).toLocaleString('en-US');
}

/** `p50 / p95` pair as in the seed's table cells. */
export function fmtPair(a: number | null, b: number | null): string {
  return `${fmtMs(a)} / ${fmtMs(b)}`;
}

/** Escapes text for HTML and SVG. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}
