/**
 * The two SQLite settings the durability argument rests on, set and then read back. `journal_mode=WAL` lets readers
 * in other threads run beside the writer; `synchronous=FULL` (2) makes every COMMIT fsync the WAL, so a commit that
 * returned survives power loss. Any other value read back is a refusal, never a warning.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { StoreError } from '../errors.ts';

/**
 * What `synchronous` must read back as: FULL. NORMAL (1) is accepted only through the benchmark seam; OFF (0) only for
 * the dev chain's 'process-exit' commits (decisions 0036 and 0048).
 */
export type SynchronousLevel = 'FULL' | 'NORMAL' | 'OFF';

const SYNC_VALUE: Record<SynchronousLevel, number> = { FULL: 2, NORMAL: 1, OFF: 0 };

/** Throws STORE_PRAGMA_MISMATCH naming the setting, the value found and the value required. */
export function requireSetting(setting: string, found: unknown, required: unknown, file: string): void {
  if (found !== required) {
    throw new StoreError('STORE_PRAGMA_MISMATCH', `${file}: ${setting} is ${String(found)}, required ${String(required)}`, {
      file,
      setting,
      found,
      required,
    });
  }
}

/** Sets WAL and the synchronous level on `db`, reads both back and refuses any other value. */
export function applyDurabilityPragmas(db: BetterSqlite3.Database, file: string, level: SynchronousLevel = 'FULL'): void {
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  requireSetting('journal_mode', String(mode).toLowerCase(), 'wal', file);
  requireSetting('journal_mode', String(db.pragma('journal_mode', { simple: true })).toLowerCase(), 'wal', file);
  db.pragma(`synchronous = ${level}`);
  requireSetting('synchronous', db.pragma('synchronous', { simple: true }), SYNC_VALUE[level], file);
}
