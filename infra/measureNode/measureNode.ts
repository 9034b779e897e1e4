import { setTimeout as sleep } from 'node:timers/promises';
import { MeasureNodeError } from './errors.ts';
import type { MeasureOptions } from './options.ts';
import { findPidByPort } from './proc/findPid.ts';
import { ioDelta } from './proc/processStats.ts';
import { pacedCaller } from './pacedCaller.ts';
import { createRpcCaller } from './rpcCall.ts';
import { markLog, summarizeSlowBlocksSince } from './slowBlocks.ts';
import { takeSnapshot } from './snapshot.ts';
import { REPORT_SCHEMA, type MeasureReport, type Snapshot, type WindowResult } from './types.ts';
import { MEASURE_NODE_VERSION } from './version.ts';

/**
 * Records an endpoint before and after a window and returns the report (issue #9, with the #1222 fixes). The window
 * runs from the start of the before snapshot to the start of the after snapshot, so both snapshots' calls fall
 * inside the I/O and datadir deltas the same way.
 */
export async function measureNode(options: MeasureOptions): Promise<MeasureReport> {
  validate(options);
  const progress = options.onProgress ?? (() => {});
  const wait = options.sleep ?? ((ms: number) => sleep(ms));
  const processSource = await resolvePid(options);
  const pid = processSource.pid;
  const caller = pacedCaller(createRpcCaller(options.url, options.headers, options.timeoutMs), options.pauseMs);
  try {
    const logMark = options.logFile === undefined ? null : await markLog(options.logFile);
    const started = Date.now();
    progress(`before snapshot: ${options.methods.length} methods x ${options.calls} calls`);
    const before = await takeSnapshot({ ...options, caller, pid, datadir: options.datadir });
    const remaining = options.windowSec * 1000 - (Date.now() - started);
    progress(`window: waiting ${Math.max(0, Math.round(remaining / 1000))} s`);
    if (remaining > 0) await wait(remaining);
    const windowSec = (Date.now() - started) / 1000;
    progress('after snapshot');
    const after = await takeSnapshot({ ...options, caller, pid, datadir: options.datadir });
    const slowBlocks = logMark === null ? null : await summarizeSlowBlocksSince(logMark);
    return {
      schema: REPORT_SCHEMA,
      tool: { name: 'measure-node', version: MEASURE_NODE_VERSION },
      endpoint: redactUrl(options.url),
      options: {
        windowSec: options.windowSec,
        calls: options.calls,
        pauseMs: options.pauseMs,
        timeoutMs: options.timeoutMs,
        headerNames: Object.keys(options.headers),
        methods: options.methods.map((m) => m.label),
      },
      processSource: { kind: processSource.kind, detail: processSource.detail },
      before,
      after,
      window: windowResult(before, after, Math.round(windowSec * 1000) / 1000, slowBlocks),
    };
  } finally {
    caller.close();
  }
}

function windowResult(before: Snapshot, after: Snapshot, seconds: number, slowBlocks: WindowResult['slowBlocks']): WindowResult {
  const blocks = before.node.head !== null && after.node.head !== null ? after.node.head - before.node.head : null;
  const io = before.process?.io && after.process?.io ? ioDelta(before.process.io, after.process.io) : null;
  let datadir: WindowResult['datadir'] = null;
  if (before.datadir && after.datadir) {
    const growthBytes = after.datadir.bytes - before.datadir.bytes;
    datadir = { growthBytes, bytesPerBlock: blocks !== null && blocks > 0 ? Math.round(growthBytes / blocks) : null };
  }
  return { seconds, blocks, io, datadir, slowBlocks };
}

async function resolvePid(options: MeasureOptions): Promise<{ pid: number | null; kind: 'pid' | 'port' | 'none'; detail: string }> {
  if (options.pid !== undefined) return { pid: options.pid, kind: 'pid', detail: `--pid ${options.pid}` };
  if (options.findPidFromPort === undefined) return { pid: null, kind: 'none', detail: 'no --pid and the endpoint is not local' };
  const pid = await findPidByPort(options.findPidFromPort);
  if (pid === null) return { pid: null, kind: 'none', detail: `no readable process listens on port ${options.findPidFromPort}` };
  return { pid, kind: 'port', detail: `listening on port ${options.findPidFromPort}` };
}

function validate(o: MeasureOptions): void {
  const bad = (message: string) => new MeasureNodeError('BAD_OPTION', message);
  if (!Number.isFinite(o.windowSec) || o.windowSec < 0) throw bad(`--window must be a number of seconds >= 0, got ${o.windowSec}`);
  if (!Number.isInteger(o.calls) || o.calls < 1) throw bad(`--calls must be an integer >= 1, got ${o.calls}`);
  if (!Number.isFinite(o.pauseMs) || o.pauseMs < 0) throw bad(`--pause-ms must be >= 0, got ${o.pauseMs}`);
  if (!Number.isFinite(o.timeoutMs) || o.timeoutMs <= 0) throw bad(`--timeout-ms must be > 0, got ${o.timeoutMs}`);
  if (o.methods.length === 0) throw bad('no methods to measure');
  let url: URL;
  try {
    url = new URL(o.url);
  } catch {
    throw bad(`endpoint ${JSON.stringify(o.url)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad(`endpoint must be http or https, got ${url.protocol}`);
}

/** Drops user:password and query values from the URL written to the report (a key may sit in either). */
export function redactUrl(raw: string): string {
  const url = new URL(raw);
  if (url.username || url.password) {
    url.username = 'redacted';
    url.password = '';
  }
  for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, 'redacted');
  return url.toString();
}
