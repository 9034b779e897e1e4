import type { MeasureReport } from '../types.ts';
import { fmtBytes, fmtInt, fmtMs, fmtPair } from './format.ts';

/** A table as plain cells; Markdown and HTML render the same rows, so the two reports never disagree. */
export interface Table {
  title: string;
  note?: string;
  head: string[];
  rows: string[][];
}

/** The report's facts line by line (endpoint, client, head, window, host). */
export function overview(r: MeasureReport): [string, string][] {
  const b = r.before;
  const a = r.after;
  const load = (s: typeof b) => `${s.host.loadavg.join(' / ')} on ${s.host.cores} cores`;
  return [
    ['Endpoint', r.endpoint],
    ['Client before / after', `${b.node.clientVersion ?? 'unknown'} / ${a.node.clientVersion ?? 'unknown'}`],
    [
      'Head before → after',
      `${fmtInt(b.node.head)} → ${fmtInt(a.node.head)} (${r.window.blocks === null ? 'unknown' : fmtInt(r.window.blocks)} blocks)`,
    ],
    ['Chain id', String(a.node.chainId ?? b.node.chainId ?? 'unknown')],
    ['Window', `${r.window.seconds} s (${b.at} → ${a.at})`],
    ['Calls', `${r.options.calls} per method per snapshot, pause ${r.options.pauseMs} ms, timeout ${r.options.timeoutMs} ms`],
    ['Load average (1/5/15 min) before', load(b)],
    ['Load average (1/5/15 min) after', load(a)],
    [
      'Process',
      r.processSource.kind === 'none' ? `not measured (${r.processSource.detail})` : `pid ${b.process?.pid} (${r.processSource.detail})`,
    ],
  ];
}

/** The seed's latency table: p50 / p95 of successful calls, failures counted beside them. */
export function latencyTable(r: MeasureReport): Table {
  const rows = r.before.methods.map((bm, i) => {
    const am = r.after.methods[i];
    return [bm.label, fmtPair(bm.p50Ms, bm.p95Ms), fmtPair(am.p50Ms, am.p95Ms), `${bm.failed} / ${am.failed}`];
  });
  return {
    title: 'Latency',
    note: `Milliseconds, nearest rank, ${r.options.calls} calls each; failed calls are kept out of the percentiles.`,
    head: ['Call', 'Before p50 / p95', 'After p50 / p95', 'Errors before / after'],
    rows,
  };
}

/** Every failure reason per method and snapshot (#1222). */
export function failureTable(r: MeasureReport): Table {
  const rows: string[][] = [];
  for (const [name, snap] of [
    ['before', r.before],
    ['after', r.after],
  ] as const) {
    for (const m of snap.methods) {
      for (const f of m.failureSummary) rows.push([m.label, name, f.reason, String(f.count), f.example]);
    }
  }
  return {
    title: 'Failed calls',
    note: rows.length === 0 ? 'No call failed.' : 'Grouped by reason; the message is the first one seen.',
    head: ['Call', 'Snapshot', 'Reason', 'Count', 'Message'],
    rows,
  };
}

/** Memory before and after, shaped like the seed's table. */
export function memoryTable(r: MeasureReport): Table | null {
  const b = r.before.process?.memory;
  const a = r.after.process?.memory;
  if (!b || !a) return null;
  return {
    title: 'Memory',
    head: ['', 'Before', 'After'],
    rows: [
      ['RSS', fmtBytes(b.rssBytes), fmtBytes(a.rssBytes)],
      ['of which anonymous', fmtBytes(b.rssAnonBytes), fmtBytes(a.rssAnonBytes)],
      ['of which file-backed', fmtBytes(b.rssFileBytes), fmtBytes(a.rssFileBytes)],
      ['Peak (VmHWM)', fmtBytes(b.vmHwmBytes), fmtBytes(a.vmHwmBytes)],
      ['PSS (smaps_rollup)', fmtBytes(b.pssBytes), fmtBytes(a.pssBytes)],
    ],
  };
}

/** I/O, datadir growth and blocks over the window. */
export function windowTable(r: MeasureReport): Table {
  const w = r.window;
  const rows: string[][] = [['Blocks', w.blocks === null ? '–' : fmtInt(w.blocks)]];
  if (w.io) {
    rows.push(['Written through system calls (wchar)', fmtBytes(w.io.wchar)]);
    rows.push(['Reached the disk (write_bytes)', fmtBytes(w.io.writeBytes)]);
    rows.push(['Read from disk (read_bytes)', fmtBytes(w.io.readBytes)]);
  }
  if (w.datadir) {
    rows.push(['Datadir growth', `${fmtInt(w.datadir.growthBytes)} bytes`]);
    rows.push(['Bytes per block', w.datadir.bytesPerBlock === null ? '–' : fmtInt(w.datadir.bytesPerBlock)]);
    const fs = r.after.datadir?.filesystem;
    rows.push(['Datadir filesystem', fs ? `${fs.fstype} on ${fs.source} (${fs.target})` : 'unknown']);
  }
  return { title: 'Over the window', note: `${w.seconds} s`, head: ['', 'Value'], rows };
}

/** Slow-block log summary: p50/p95 of each timing over the window's lines. */
export function slowBlockTable(r: MeasureReport): Table | null {
  const s = r.window.slowBlocks;
  if (!s) return null;
  const range = s.firstBlock === null ? 'no slow-block lines in the window' : `blocks ${fmtInt(s.firstBlock)}–${fmtInt(s.lastBlock)}`;
  return {
    title: 'Block import (slow-block log)',
    note: `${s.lines} lines from ${s.file}, ${range}, ${fmtInt(s.txCount)} txs, ${fmtInt(s.gasUsed)} gas${s.unparsed ? `, ${s.unparsed} unparsed` : ''}${s.truncated ? ', log was truncated during the window' : ''}.`,
    head: ['Timing', 'p50', 'p95', 'max', 'lines'],
    rows: s.timings.map((t) => [t.field, fmtMs(t.p50), fmtMs(t.p95), fmtMs(t.max), String(t.count)]),
  };
}

/** All tables in report order. */
export function allTables(r: MeasureReport): Table[] {
  return [latencyTable(r), failureTable(r), memoryTable(r), windowTable(r), slowBlockTable(r)].filter((t): t is Table => t !== null);
}
