import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TARGET_LABELS, labelsInExpr, metricsInExpr, readMetricsDoc, registeredNames, resolveSeries } from './support/metricsDoc.ts';
import { runTool } from './support/runTool.ts';

interface Target {
  expr: string;
  datasource: { uid: string };
}
interface Panel {
  id: number;
  title: string;
  datasource: { uid: string };
  targets: Target[];
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
}

const DASH_DIR = resolve('infra/grafana/dashboards');
const dashboards = readdirSync(DASH_DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ file: f, dash: JSON.parse(readFileSync(join(DASH_DIR, f), 'utf8')) as Dashboard }));
const doc = readMetricsDoc();
const ruleExprs = [...readFileSync('infra/prometheus/rules/xone-alerts.yml', 'utf8').matchAll(/expr: (\|\n(?:\s{10,}.*\n)+|.*)/g)].map(
  (m) => m[1],
);
const tmp = mkdtempSync(join(tmpdir(), 'xone-dash-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Every (where, expr) pair a dashboard panel queries. */
const panelExprs = dashboards.flatMap(({ file, dash }) =>
  dash.panels.flatMap((p) => p.targets.map((t) => ({ where: `${file} panel ${p.id} "${p.title}"`, expr: t.expr }))),
);

describe('dashboards, alert rules and docs/metrics.md', () => {
  it('default: a core and a gateway dashboard, every panel on the provisioned datasource with unique ids', () => {
    expect(dashboards.map((d) => d.dash.uid).sort()).toEqual(['xone-core', 'xone-gateway']);
    const provisioned = readFileSync('infra/grafana/provisioning/datasources/prometheus.yml', 'utf8');
    for (const { dash } of dashboards) {
      expect(new Set(dash.panels.map((p) => p.id)).size).toBe(dash.panels.length);
      for (const p of dash.panels) {
        expect(p.targets.length, p.title).toBeGreaterThan(0);
        expect(provisioned).toContain(`uid: ${p.datasource.uid}`);
      }
    }
  });

  it('behavior: every metric a panel or an alert rule queries is documented', () => {
    const missing: string[] = [];
    for (const { where, expr } of [...panelExprs, ...ruleExprs.map((expr) => ({ where: 'alert rule', expr }))]) {
      for (const series of metricsInExpr(expr)) {
        if (series !== 'up' && !resolveSeries(series, doc)) missing.push(`${where}: ${series}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('behavior: every label a query filters or groups on is a documented label of its metrics or a target label', () => {
    const wrong: string[] = [];
    for (const { where, expr } of [...panelExprs, ...ruleExprs.map((expr) => ({ where: 'alert rule', expr }))]) {
      const allowed = new Set([...TARGET_LABELS, ...metricsInExpr(expr).flatMap((s) => resolveSeries(s, doc)?.labels ?? [])]);
      for (const label of labelsInExpr(expr)) if (!allowed.has(label)) wrong.push(`${where}: label ${label} in ${expr}`);
    }
    expect(wrong).toEqual([]);
  });

  it('behavior: a metric the doc marks exported is registered by its component', () => {
    // Only the "exported" claim is enforced: a planned metric that a component starts registering is a stale but safe
    // row (its status should be flipped in the same commit), while an exported row without a registration would
    // promise a dashboard data it never gets.
    const registered = { core: registeredNames('core'), gateway: registeredNames('gateway') };
    const wrong = doc
      .filter((d) => d.status === 'exported' && !registered[d.component].has(d.name))
      .map((d) => `${d.name}: marked exported, but ${d.component}/ does not register it`);
    expect(wrong).toEqual([]);
    expect(doc.filter((d) => d.component === 'core' && d.status === 'exported').length).toBeGreaterThan(0);
  });

  it('behavior: every metric issue #9 names is shown on a dashboard', () => {
    // The fixed list from the issue, not every row of the doc: a component may document a new metric before a panel
    // shows it.
    const named = [
      'xone_head_number',
      'xone_loop_lag_ms',
      'xone_loop_lag_seconds',
      'xone_import_blocks_total',
      'xone_import_txs_total',
      'xone_import_gas_total',
      'xone_produce_blocks_total',
      'xone_store_commit_seconds',
      'xone_store_batch_size',
      'xone_store_durable',
      'xone_store_degraded_seconds',
      'xone_recovery_queue_length',
      'xone_recovery_seconds',
      'xone_txpool_pending',
      'xone_txpool_queued',
      'xone_peers',
      'xone_sync_lag_blocks',
      // Gateway: issue #9's list (requests, calls, rate-limit decisions, Redis errors, upstream latency, cache, HTTP
      // responses) under the names the gateway registers.
      'xone_gateway_rpc_calls_total',
      'xone_gateway_ratelimit_decisions_total',
      'xone_gateway_redis_errors_total',
      'xone_gateway_upstream_duration_seconds',
      'xone_gateway_cache_requests_total',
      'xone_gateway_http_responses_total',
    ];
    const shown = new Set(panelExprs.flatMap(({ expr }) => metricsInExpr(expr).map((s) => resolveSeries(s, doc)?.name)));
    expect(named.filter((n) => !shown.has(n))).toEqual([]);
    expect(named.filter((n) => !doc.some((d) => d.name === n))).toEqual([]);
    // One set of gateway names: nothing an alert or a panel reads is still only planned.
    const planned = [...panelExprs.map((p) => p.expr), ...ruleExprs]
      .flatMap((e) => metricsInExpr(e))
      .filter((s) => resolveSeries(s, doc)?.status === 'planned');
    expect(planned).toEqual([]);
  });

  it('behavior: every panel query is valid PromQL (promtool parses it as a recording rule)', () => {
    const rules = panelExprs.map(
      ({ expr }, i) => `      - record: dashboard:query_${i}\n        expr: ${JSON.stringify(expr.replace(/\$instance/g, '.*'))}`,
    );
    const file = join(tmp, 'panels.yml');
    writeFileSync(file, `groups:\n  - name: dashboard-queries\n    rules:\n${rules.join('\n')}\n`);
    const r = runTool('promtool', ['check', 'rules', file]);
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain(`SUCCESS: ${panelExprs.length} rules found`);
  });
});
