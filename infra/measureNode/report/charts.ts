import type { MeasureReport } from '../types.ts';
import { barChart } from './svgBarChart.ts';

const BEFORE = '#9ecae1';
const BEFORE_DARK = '#3182bd';
const AFTER = '#fdae6b';
const AFTER_DARK = '#e6550d';
const mb = (v: number) => (v / 1e6).toFixed(1);
const ms = (v: number) => v.toFixed(2);

/** The charts of the HTML report: latency per method, failures, memory, I/O, slow-block timings (when measured). */
export function renderCharts(r: MeasureReport): string[] {
  const charts = [
    barChart({
      id: 'chart-latency',
      title: 'Latency per method, successful calls',
      unit: 'ms',
      series: [
        { name: 'before p50', color: BEFORE },
        { name: 'before p95', color: BEFORE_DARK },
        { name: 'after p50', color: AFTER },
        { name: 'after p95', color: AFTER_DARK },
      ],
      groups: r.before.methods.map((b, i) => ({
        label: b.label,
        values: [b.p50Ms, b.p95Ms, r.after.methods[i].p50Ms, r.after.methods[i].p95Ms],
      })),
      format: ms,
    }),
    barChart({
      id: 'chart-failures',
      title: 'Failed calls per method',
      unit: 'calls',
      series: [
        { name: 'before', color: BEFORE_DARK },
        { name: 'after', color: AFTER_DARK },
      ],
      groups: r.before.methods.map((b, i) => ({ label: b.label, values: [b.failed, r.after.methods[i].failed] })),
      format: (v) => String(v),
    }),
  ];
  const bm = r.before.process?.memory;
  const am = r.after.process?.memory;
  if (bm && am) {
    charts.push(
      barChart({
        id: 'chart-memory',
        title: 'Memory',
        unit: 'MB',
        series: [
          { name: 'before', color: BEFORE_DARK },
          { name: 'after', color: AFTER_DARK },
        ],
        groups: [
          { label: 'RSS', values: [bm.rssBytes, am.rssBytes] },
          { label: 'anonymous', values: [bm.rssAnonBytes, am.rssAnonBytes] },
          { label: 'file-backed', values: [bm.rssFileBytes, am.rssFileBytes] },
          { label: 'peak (VmHWM)', values: [bm.vmHwmBytes, am.vmHwmBytes] },
        ],
        format: mb,
      }),
    );
  }
  const io = r.window.io;
  if (io) {
    charts.push(
      barChart({
        id: 'chart-io',
        title: `I/O over the ${r.window.seconds} s window`,
        unit: 'MB',
        series: [{ name: 'bytes', color: '#31a354' }],
        groups: [
          { label: 'wchar (system calls)', values: [io.wchar] },
          { label: 'write_bytes (disk)', values: [io.writeBytes] },
          { label: 'read_bytes (disk)', values: [io.readBytes] },
        ],
        format: mb,
      }),
    );
  }
  const slow = r.window.slowBlocks;
  if (slow && slow.lines > 0) {
    charts.push(
      barChart({
        id: 'chart-slow-blocks',
        title: 'Block import timings (slow-block log)',
        unit: 'ms',
        series: [
          { name: 'p50', color: '#756bb1' },
          { name: 'p95', color: '#54278f' },
        ],
        groups: slow.timings.filter((t) => t.field !== 'mgas_per_sec').map((t) => ({ label: t.field, values: [t.p50, t.p95] })),
        format: ms,
      }),
    );
  }
  return charts;
}
