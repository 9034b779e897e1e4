/**
 * `xone db check`: walks every committed segment record (framing + CRC-32C) and every index row (each block points
 * at two valid records, the canonical chain links parent hashes without gaps, lookups and logs point at canonical
 * blocks, the head marker is the canonical tip, every stored block off the canonical chain is a tracked side block
 * whose parent is stored). Read-only: safe to run beside a live writer.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { FRAME_HEADER_BYTES, frameCrcOk, readFrameHeader } from './segment/frame.ts';
import { listSegmentIds, SEGMENTS_DIR, segmentPath } from './segment/segmentFiles.ts';
import { connectionOf } from './connection.ts';
import { openReadOnly } from './readOnly.ts';
import { receiptsOffset, type BlockRow } from './read/chainReader.ts';
import type { SegmentRow } from './reconcile.ts';

/** Summary `db check` prints as JSON. */
export interface CheckReport {
  ok: boolean;
  datadir: string;
  segments: { files: number; records: number; committedBytes: number; uncommittedTailBytes: number; strayFiles: number };
  blocks: number;
  canonical: { from: number | null; to: number | null; count: number };
  head: number | null;
  /** Stored blocks off the canonical chain (side chains and unwound blocks). */
  sideBlocks: number;
  txLookups: number;
  logs: number;
  /** First problems found (at most 50), each naming file/offset or block. */
  problems: string[];
  problemCount: number;
}

const MAX_LISTED = 50;

/** Record starts and payload lengths of one segment, from a full walk. */
function walkSegment(file: string, committed: number, problem: (p: string) => void): Map<number, number> {
  const records = new Map<number, number>();
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(FRAME_HEADER_BYTES);
    let at = 0;
    while (at < committed) {
      if (readSync(fd, header, 0, FRAME_HEADER_BYTES, at) !== FRAME_HEADER_BYTES)
        return (problem(`${file}: short frame header at offset ${at}`), records);
      const h = readFrameHeader(header);
      if (at + FRAME_HEADER_BYTES + h.length > committed)
        return (problem(`${file}: record at offset ${at} runs past the committed size ${committed}`), records);
      const payload = Buffer.alloc(h.length);
      readSync(fd, payload, 0, h.length, at + FRAME_HEADER_BYTES);
      if (!frameCrcOk(h, payload)) problem(`${file}: record at offset ${at} fails its CRC-32C check`);
      records.set(at, h.length);
      at += FRAME_HEADER_BYTES + h.length;
    }
  } finally {
    closeSync(fd);
  }
  return records;
}

/** Checks the datadir; never writes. */
export function checkStore(datadir: string): CheckReport {
  const problems: string[] = [];
  let problemCount = 0;
  const problem = (p: string): void => {
    problemCount++;
    if (problems.length < MAX_LISTED) problems.push(p);
  };
  const store = openReadOnly(datadir, { readDeadlineMs: Number.MAX_SAFE_INTEGER });
  const db = connectionOf(store);
  // One read snapshot for every table, so a writer committing meanwhile cannot make the rows disagree.
  db.exec('BEGIN');
  try {
    const segmentsDir = join(datadir, SEGMENTS_DIR);
    const rows = db.prepare('SELECT id, committed_size, last_offset FROM segments ORDER BY id').all() as SegmentRow[];
    const records = new Map<number, Map<number, number>>();
    const seg = { files: rows.length, records: 0, committedBytes: 0, uncommittedTailBytes: 0, strayFiles: 0 };
    for (const row of rows) {
      const file = segmentPath(segmentsDir, row.id);
      let size: number;
      try {
        size = statSync(file).size;
      } catch {
        problem(`${file}: missing (${row.committed_size} committed bytes)`);
        continue;
      }
      if (size < row.committed_size) problem(`${file}: ${size} bytes on disk, ${row.committed_size} committed (truncated)`);
      seg.uncommittedTailBytes += Math.max(0, size - row.committed_size);
      seg.committedBytes += row.committed_size;
      const recs = walkSegment(file, Math.min(size, row.committed_size), problem);
      if (row.committed_size > 0 && !recs.has(row.last_offset))
        problem(`${file}: last committed record offset ${row.last_offset} is not a record start`);
      seg.records += recs.size;
      records.set(row.id, recs);
    }
    const known = new Set(rows.map((r) => r.id));
    seg.strayFiles = listSegmentIds(segmentsDir).filter((id) => !known.has(id)).length;

    const isRecord = (id: number, off: number, len: number): boolean => records.get(id)?.get(off) === len;
    let blocks = 0;
    for (const b of db.prepare('SELECT * FROM blocks').iterate() as IterableIterator<BlockRow>) {
      blocks++;
      const name = `block ${b.number} ${Buffer.from(b.hash).toString('hex').slice(0, 16)}`;
      if (!isRecord(b.seg, b.body_off, b.body_len)) problem(`${name}: body pointer ${b.seg}:${b.body_off} is not a valid record`);
      if (!isRecord(b.seg, receiptsOffset(b), b.rcpt_len))
        problem(`${name}: receipts pointer ${b.seg}:${receiptsOffset(b)} is not a valid record`);
    }

    const blockByHash = db.prepare('SELECT number, parent_hash FROM blocks WHERE hash = ?');
    let prev: { number: number; hash: Buffer } | undefined;
    let from: number | null = null;
    let count = 0;
    for (const c of db.prepare('SELECT number, hash FROM canonical ORDER BY number').iterate() as IterableIterator<{
      number: number;
      hash: Buffer;
    }>) {
      count++;
      from ??= c.number;
      const b = blockByHash.get(c.hash) as { number: number; parent_hash: Buffer } | undefined;
      if (!b) problem(`canonical ${c.number}: hash has no block row`);
      else if (b.number !== c.number) problem(`canonical ${c.number}: block row says number ${b.number}`);
      if (prev && prev.number + 1 !== c.number) problem(`canonical gap between ${prev.number} and ${c.number}`);
      else if (prev && b && Buffer.compare(b.parent_hash, prev.hash) !== 0)
        problem(`canonical ${c.number}: parent hash does not match canonical ${prev.number}`);
      prev = c;
    }
    const head = store.getHead('head');
    if ((head?.number ?? null) !== (prev?.number ?? null))
      problem(`head marker ${head?.number ?? 'none'} is not the canonical tip ${prev?.number ?? 'none'}`);
    else if (head && prev && Buffer.compare(head.hash, prev.hash) !== 0) problem(`head marker hash differs from canonical ${prev.number}`);

    const orphan = (table: string): number =>
      db
        .prepare(`SELECT count(*) FROM ${table} t LEFT JOIN canonical c ON c.number = t.number WHERE c.number IS NULL`)
        .pluck()
        .get() as number;
    for (const table of ['tx_lookup', 'logs']) {
      const n = orphan(table);
      if (n > 0) problem(`${table}: ${n} rows point at non-canonical block numbers`);
    }
    const sideBlocks = checkSideBlocks(db, problem);
    const txLookups = db.prepare('SELECT count(*) FROM tx_lookup').pluck().get() as number;
    const logs = db.prepare('SELECT count(*) FROM logs').pluck().get() as number;
    return {
      ok: problemCount === 0,
      datadir,
      segments: seg,
      blocks,
      canonical: { from, to: prev?.number ?? null, count },
      head: head?.number ?? null,
      sideBlocks,
      txLookups,
      logs,
      problems,
      problemCount,
    };
  } finally {
    db.exec('COMMIT');
    store.close();
  }
}

/**
 * Side chains (migration 4): every `side_blocks` row names a stored, non-canonical block of that height whose parent is
 * stored, and every stored non-canonical block has a row (else the bounds could never prune it). Returns the count.
 */
function checkSideBlocks(db: BetterSqlite3.Database, problem: (p: string) => void): number {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'side_blocks'").get() !== undefined;
  if (!hasTable) return 0;
  const name = (n: number, h: Uint8Array): string => `side block ${n} ${Buffer.from(h).toString('hex').slice(0, 16)}`;
  const rows = db
    .prepare(
      `SELECT s.number AS number, s.hash AS hash, b.number AS stored, c.hash AS canonical,
              (SELECT 1 FROM blocks p WHERE p.hash = b.parent_hash) AS parent
       FROM side_blocks s LEFT JOIN blocks b ON b.hash = s.hash LEFT JOIN canonical c ON c.number = s.number`,
    )
    .all() as { number: number; hash: Uint8Array; stored: number | null; canonical: Uint8Array | null; parent: number | null }[];
  for (const r of rows) {
    if (r.stored === null) problem(`${name(r.number, r.hash)}: has no block row`);
    else if (r.stored !== r.number) problem(`${name(r.number, r.hash)}: block row says number ${r.stored}`);
    else if (r.canonical && Buffer.compare(r.canonical, r.hash) === 0) problem(`${name(r.number, r.hash)}: is also canonical`);
    else if (r.parent === null) problem(`${name(r.number, r.hash)}: its parent is not stored`);
  }
  const untracked = db
    .prepare(
      `SELECT count(*) FROM blocks b LEFT JOIN canonical c ON c.number = b.number AND c.hash = b.hash
       WHERE c.number IS NULL AND NOT EXISTS (SELECT 1 FROM side_blocks s WHERE s.number = b.number AND s.hash = b.hash)`,
    )
    .pluck()
    .get() as number;
  if (untracked > 0) problem(`blocks: ${untracked} stored blocks are neither canonical nor tracked side blocks`);
  return rows.length;
}
