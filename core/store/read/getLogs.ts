/**
 * eth_getLogs over the log index. The narrowest index drives the scan (address, else topic0, else the block range),
 * the remaining topic positions filter in JavaScript, and the deadline (the store's budget, the caller's deadline and
 * abort signal) is checked between rows. Past `limit` matches the scan stops with STORE_RESULT_LIMIT, so a caller's
 * memory never holds more than its limit.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { StoreError, StoreResultLimitError } from '../errors.ts';
import type { LogFilter, LogHit } from '../types.ts';
import type { Deadline } from './deadline.ts';

interface LogRow {
  number: number;
  log_index: number;
  tx_index: number;
  address: Uint8Array;
  topic0: Uint8Array | null;
  topic1: Uint8Array | null;
  topic2: Uint8Array | null;
  topic3: Uint8Array | null;
  hash: Uint8Array;
}

const COLS = 'l.number, l.log_index, l.tx_index, l.address, l.topic0, l.topic1, l.topic2, l.topic3, c.hash';
const JOIN = 'FROM logs l JOIN canonical c ON c.number = l.number';

/** Rows checked between two deadline checks: cheap enough to keep the check negligible. */
const CHECK_EVERY = 64;

const asList = (v: Uint8Array | Uint8Array[] | null | undefined): Uint8Array[] | null => (v == null ? null : Array.isArray(v) ? v : [v]);

function matchesAny(value: Uint8Array | null, options: Uint8Array[] | null): boolean {
  if (options === null) return true;
  if (value === null) return false;
  return options.some((o) => Buffer.compare(Buffer.from(o.buffer, o.byteOffset, o.byteLength), value as Buffer) === 0);
}

/** Prepared statements for the three scan shapes. */
export interface LogStatements {
  byAddress: BetterSqlite3.Statement;
  byTopic0: BetterSqlite3.Statement;
  byRange: BetterSqlite3.Statement;
}

/** Prepares the scan statements on `db`. */
export function prepareLogStatements(db: BetterSqlite3.Database): LogStatements {
  const order = 'ORDER BY l.number, l.log_index';
  return {
    byAddress: db.prepare(`SELECT ${COLS} ${JOIN} WHERE l.address = ? AND l.number BETWEEN ? AND ? ${order}`),
    byTopic0: db.prepare(`SELECT ${COLS} ${JOIN} WHERE l.topic0 = ? AND l.number BETWEEN ? AND ? ${order}`),
    byRange: db.prepare(`SELECT ${COLS} ${JOIN} WHERE l.number BETWEEN ? AND ? ${order}`),
  };
}

/** Test seam: every row a scan reads costs this many more milliseconds (a slow disk). */
export interface LogScanFaults {
  rowDelayMs?: number;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Logs matching `filter`, ordered by (block, log index). */
export function getLogs(stmts: LogStatements, filter: LogFilter, deadline: Deadline, faults: LogScanFaults = {}): LogHit[] {
  if (!(filter.fromBlock >= 0 && filter.toBlock >= filter.fromBlock)) {
    throw new StoreError('STORE_BAD_OPTIONS', `bad log range ${filter.fromBlock}..${filter.toBlock}`, { ...filter });
  }
  const addresses = asList(filter.address);
  const topics = (filter.topics ?? []).slice(0, 4).map(asList);
  const limit = filter.limit ?? Number.POSITIVE_INFINITY;
  const scans: [BetterSqlite3.Statement, unknown[]][] = addresses
    ? addresses.map((a) => [stmts.byAddress, [a, filter.fromBlock, filter.toBlock]])
    : topics[0]
      ? topics[0].map((t) => [stmts.byTopic0, [t, filter.fromBlock, filter.toBlock]])
      : [[stmts.byRange, [filter.fromBlock, filter.toBlock]]];
  const hits: LogHit[] = [];
  let scanned = 0;
  const delay = faults.rowDelayMs ?? 0;
  deadline.check('getLogs', 0);
  for (const [stmt, args] of scans) {
    for (const row of stmt.iterate(...args) as IterableIterator<LogRow>) {
      if (delay > 0) Atomics.wait(sleeper, 0, 0, delay);
      if (++scanned % CHECK_EVERY === 0) deadline.check('getLogs', scanned);
      const rowTopics = [row.topic0, row.topic1, row.topic2, row.topic3];
      if (!matchesAny(row.address, addresses) || !topics.every((t, i) => matchesAny(rowTopics[i], t))) continue;
      if (hits.length >= limit) throw new StoreResultLimitError('getLogs', limit, scanned);
      hits.push({
        blockNumber: row.number,
        blockHash: row.hash,
        txIndex: row.tx_index,
        logIndex: row.log_index,
        address: row.address,
        topics: rowTopics.filter((t): t is Uint8Array => t !== null),
      });
    }
  }
  deadline.check('getLogs', scanned);
  if (scans.length > 1) hits.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
  return hits;
}
