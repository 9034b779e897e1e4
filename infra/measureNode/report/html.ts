import type { MeasureReport } from '../types.ts';
import { renderCharts } from './charts.ts';
import { esc } from './format.ts';
import { allTables, overview, type Table } from './sections.ts';

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}
table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
th{background:#f3f3f3}.chart{display:block;margin:12px 0 24px}.chart-title{font-weight:600;font-size:14px}
.label,.value,.legend{font-size:11px}dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}dt{font-weight:600}`;

/**
 * Renders the self-contained HTML report: inline CSS and inline SVG charts, no script, and a Content-Security-Policy
 * that forbids every external load, so it renders the same offline, from a file or an attachment.
 */
export function renderHtml(r: MeasureReport): string {
  const facts = overview(r)
    .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>measure-node report: ${esc(r.endpoint)}</title>
<style>${STYLE}</style></head>
<body>
<h1>measure-node report</h1>
<dl>${facts}</dl>
<h2>Charts</h2>
${renderCharts(r).join('\n')}
${allTables(r).map(renderTable).join('\n')}
<p>Schema ${esc(r.schema)}, ${esc(r.tool.name)} ${esc(r.tool.version)}.</p>
</body></html>
`;
}

function renderTable(t: Table): string {
  const head = `<tr>${t.head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
  const rows = t.rows.map((row) => `<tr>${row.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('');
  return `<h2>${esc(t.title)}</h2>${t.note ? `<p>${esc(t.note)}</p>` : ''}${t.rows.length ? `<table>${head}${rows}</table>` : ''}`;
}
