/** Reads docs/metrics.md (the metrics reference page) and finds metric registrations in the source. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** One row of the docs/metrics.md table. */
export interface DocMetric {
  name: string;
  type: 'counter' | 'gauge' | 'histogram';
  labels: string[];
  component: 'core' | 'gateway';
  status: 'exported' | 'planned';
}

/** The rows of the reference table; throws on a row that does not follow the table's grammar. */
export function readMetricsDoc(path = 'docs/metrics.md'): DocMetric[] {
  const rows: DocMetric[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.startsWith('| `xone_')) continue;
    const cells = line.split('|').map((c) => c.trim());
    const [, name, type, labels, component, status] = cells;
    const row = {
      name: name.replace(/`/g, ''),
      type: type as DocMetric['type'],
      labels: labels === '' ? [] : labels.split(',').map((l) => l.replace(/`/g, '').trim()),
      component: component as DocMetric['component'],
      status: status as DocMetric['status'],
    };
    if (
      !['counter', 'gauge', 'histogram'].includes(row.type) ||
      !['core', 'gateway'].includes(row.component) ||
      !['exported', 'planned'].includes(row.status)
    ) {
      throw new Error(`docs/metrics.md: malformed row: ${line}`);
    }
    rows.push(row);
  }
  return rows;
}

/** Every `.ts` file under `dir` (tests excluded: a test naming a metric does not register it). */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

/**
 * Names registered by a component: string literals ('name' or "name") starting with `xone_` in its source. A metric
 * mentioned only in a comment or a doc string (backticks, bare text) does not count.
 */
export function registeredNames(component: 'core' | 'gateway'): Set<string> {
  const names = new Set<string>();
  for (const file of sourceFiles(component)) {
    for (const m of readFileSync(file, 'utf8').matchAll(/(['"])(xone_[a-z0-9_]+)\1/g)) names.add(m[2]);
  }
  return names;
}

/** Metric names a PromQL expression reads (`xone_*` and Prometheus's own `up`). */
export function metricsInExpr(expr: string): string[] {
  const names = [...expr.matchAll(/\b(xone_[a-z0-9_]+)\b/g)].map((m) => m[1]);
  if (/\bup\s*[{[]/.test(expr)) names.push('up');
  return [...new Set(names)];
}

/** Maps a series name to its documented metric (a histogram's _bucket/_sum/_count to the histogram). */
export function resolveSeries(series: string, doc: DocMetric[]): DocMetric | undefined {
  const direct = doc.find((d) => d.name === series);
  if (direct) return direct;
  const base = series.replace(/_(bucket|sum|count)$/, '');
  return doc.find((d) => d.name === base && d.type === 'histogram');
}

/** Labels every scraped series has (target labels) or a histogram bucket has (`le`). */
export const TARGET_LABELS = ['instance', 'job', 'role', 'le'];

/** Label names an expression filters on (`{a="x"}`) or groups by (`by (a, b)`). */
export function labelsInExpr(expr: string): string[] {
  const out = new Set<string>();
  for (const m of expr.matchAll(/\{([^}]*)\}/g)) for (const l of m[1].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)/g)) out.add(l[1]);
  for (const m of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) for (const l of m[1].split(',')) if (l.trim()) out.add(l.trim());
  return [...out];
}
