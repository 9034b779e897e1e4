import type { MeasureReport } from '../types.ts';
import { allTables, overview, type Table } from './sections.ts';

/** Renders the report as Markdown shaped like the seed's tables. */
export function renderMarkdown(r: MeasureReport): string {
  const lines = ['# measure-node report', ''];
  for (const [k, v] of overview(r)) lines.push(`- ${k}: ${cell(v)}`);
  for (const t of allTables(r)) lines.push('', ...renderTable(t));
  lines.push('');
  return lines.join('\n');
}

function renderTable(t: Table): string[] {
  const out = [`## ${t.title}`, ''];
  if (t.note) out.push(t.note);
  if (t.rows.length === 0) return out;
  if (t.note) out.push('');
  out.push(`| ${t.head.map(cell).join(' | ')} |`, `|${t.head.map(() => '---').join('|')}|`);
  for (const row of t.rows) out.push(`| ${row.map(cell).join(' | ')} |`);
  return out;
}

/** Keeps a value inside its table cell. */
function cell(v: string): string {
  return v.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}
