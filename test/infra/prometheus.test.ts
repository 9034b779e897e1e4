import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTool } from './support/runTool.ts';

const DIR = resolve('infra/prometheus');

describe('Prometheus config and alert rules', () => {
  it('default: `promtool check config` accepts the scrape config and finds the rule file', () => {
    const r = runTool('promtool', ['check', 'config', 'prometheus.yml'], DIR);
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS: 1 rule files found');
  });

  it('default: `promtool check rules` accepts the rules', () => {
    const r = runTool('promtool', ['check', 'rules', 'rules/xone-alerts.yml'], DIR);
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS: 8 rules found');
  });

  it('behavior: `promtool test rules` passes every alert unit test (fires on the bad series, not on the healthy one)', () => {
    const r = runTool('promtool', ['test', 'rules', 'tests/xone-alerts.test.yml'], DIR);
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS');
  });
});
