/**
 * The raw cost of the flushes a commit needs, measured on the same disk in the same run: append one record + fsync,
 * fsync of a directory, and a bare better-sqlite3 durable commit (WAL, synchronous=FULL, one small row, autocheckpoint
 * off so the figure is one WAL fsync). The store's per-block p50 is compared with their sum.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { summarize } from './stats.ts';

/** Latency summaries (ms) of the raw operations. */
export interface RawCosts {
  appendFsync: ReturnType<typeof summarize>;
  dirFsync: ReturnType<typeof summarize>;
  sqliteCommit: ReturnType<typeof summarize>;
}

/** Measures `n` of each operation under `dir` (removed afterwards). */
export function measureRaw(dir: string, n: number, recordBytes: number): RawCosts {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const record = new Uint8Array(recordBytes).fill(7);
  const fd = openSync(join(dir, 'raw.seg'), 'w');
  const append: number[] = [];
  let pos = 0;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    writeSync(fd, record, 0, record.length, pos);
    fsyncSync(fd);
    append.push(performance.now() - t);
    pos += record.length;
  }
  closeSync(fd);
  const dirTimes: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const dfd = openSync(dir, 'r');
    fsyncSync(dfd);
    closeSync(dfd);
    dirTimes.push(performance.now() - t);
  }
  const db = new Database(join(dir, 'raw.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)');
  const ins = db.prepare('INSERT INTO t (k, v) VALUES (?, ?)');
  const row = new Uint8Array(600).fill(1);
  const commits: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    db.exec('BEGIN IMMEDIATE');
    ins.run(i, row);
    db.exec('COMMIT');
    commits.push(performance.now() - t);
  }
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { appendFsync: summarize(append), dirFsync: summarize(dirTimes), sqliteCommit: summarize(commits) };
}
