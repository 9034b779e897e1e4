import { open, stat } from 'node:fs/promises';
import { MeasureNodeError } from './errors.ts';
import { nearestRank } from './percentile.ts';
import type { SlowBlockSummary, TimingSummary } from './types.ts';

/** The timing fields of geth's "Slow block" record (cross-client shape) that are summarized, in report order. */
export const TIMING_FIELDS = ['execution_ms', 'state_read_ms', 'state_hash_ms', 'commit_ms', 'total_ms', 'recovery_ms'] as const;

/** One parsed slow-block record. */
export interface SlowBlockRecord {
  number: number;
  gasUsed: number;
  txCount: number;
  timings: Partial<Record<(typeof TIMING_FIELDS)[number] | 'mgas_per_sec', number>>;
}

/** Where the log file ended at the before snapshot; lines after it belong to the window. */
export interface LogMark {
  file: string;
  offset: number;
}

/** Records the current end of the log file (0 when it does not exist yet: the node may create it later). */
export async function markLog(file: string): Promise<LogMark> {
  const st = await stat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw new MeasureNodeError('LOG_UNREADABLE', `cannot read log ${file}: ${err.message}`, { file });
  });
  return { file, offset: st?.size ?? 0 };
}

/** Reads the lines written since `mark` and summarizes the slow-block records among them. */
export async function summarizeSlowBlocksSince(mark: LogMark): Promise<SlowBlockSummary> {
  const size = (await stat(mark.file).catch(() => null))?.size ?? 0;
  const truncated = size < mark.offset;
  const from = truncated ? 0 : mark.offset;
  const text = await readRange(mark.file, from, size);
  // A line still being written at the after snapshot has no newline yet: leave it out.
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return { file: mark.file, truncated, ...summarizeSlowBlockText(complete) };
}

/** Parses log text and summarizes its slow-block records; other lines are ignored. Exported for tests. */
export function summarizeSlowBlockText(text: string): Omit<SlowBlockSummary, 'file' | 'truncated'> {
  const records: SlowBlockRecord[] = [];
  let unparsed = 0;
  for (const line of text.split('\n')) {
    if (!/slow block/i.test(line)) continue;
    const record = parseSlowBlockLine(line);
    if (record) records.push(record);
    else unparsed++;
  }
  const numbers = records.map((r) => r.number);
  const timings: TimingSummary[] = [...TIMING_FIELDS, 'mgas_per_sec' as const].map((field) => {
    const values = records.map((r) => r.timings[field]).filter((v): v is number => typeof v === 'number');
    return {
      field,
      count: values.length,
      p50: nearestRank(values, 50),
      p95: nearestRank(values, 95),
      max: values.length ? Math.max(...values) : null,
    };
  });
  return {
    lines: records.length,
    unparsed,
    firstBlock: numbers.length ? Math.min(...numbers) : null,
    lastBlock: numbers.length ? Math.max(...numbers) : null,
    gasUsed: records.reduce((s, r) => s + r.gasUsed, 0),
    txCount: records.reduce((s, r) => s + r.txCount, 0),
    timings,
  };
}

/**
 * Parses one slow-block line: a JSON object (possibly after a text prefix such as a timestamp) with
 * block{number,hash,gas_used,tx_count}, timing{execution_ms,state_read_ms,state_hash_ms,commit_ms,total_ms},
 * throughput{mgas_per_sec} and recovery_ms (top level or inside timing). Null when the line does not have that shape.
 */
export function parseSlowBlockLine(line: string): SlowBlockRecord | null {
  const start = line.indexOf('{');
  if (start < 0) return null;
  let obj: unknown;
  try {
    obj = JSON.parse(line.slice(start));
  } catch {
    return null;
  }
  if (!isRecord(obj) || !isRecord(obj.block) || !isRecord(obj.timing)) return null;
  const number = num(obj.block.number);
  if (number === undefined) return null;
  const timings: SlowBlockRecord['timings'] = {};
  for (const field of TIMING_FIELDS) {
    const v = num(obj.timing[field]) ?? num(obj[field]);
    if (v !== undefined) timings[field] = v;
  }
  const mgas = isRecord(obj.throughput) ? num(obj.throughput.mgas_per_sec) : undefined;
  if (mgas !== undefined) timings.mgas_per_sec = mgas;
  return { number, gasUsed: num(obj.block.gas_used) ?? 0, txCount: num(obj.block.tx_count) ?? 0, timings };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Accepts numbers and numeric strings (a block number may be written as a quantity string). */
function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    if (Number.isFinite(n)) return n;
  }
  return undefined;
}

async function readRange(file: string, from: number, to: number): Promise<string> {
  if (to <= from) return '';
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(to - from);
    const { bytesRead } = await fh.read(buf, 0, buf.length, from);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}
