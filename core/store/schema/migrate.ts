/**
 * Applies pending migrations. Refuses (before writing anything) a file written by a newer build or by a build with
 * different migrations; applies the missing ones in one explicit transaction.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { StoreError } from '../errors.ts';
import type { Migration } from './migration.ts';

/** Version rows as stored. */
interface VersionRow {
  version: number;
  name: string;
}

/** The applied versions, or [] when the table does not exist yet (a fresh file). */
export function readAppliedVersions(db: BetterSqlite3.Database): VersionRow[] {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
  if (!exists) return [];
  return db.prepare('SELECT version, name FROM schema_version ORDER BY version').all() as VersionRow[];
}

/** Checks `applied` against `migrations`; throws without touching anything when they disagree. */
export function checkVersions(applied: VersionRow[], migrations: readonly Migration[], file: string): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new StoreError('STORE_BAD_OPTIONS', `migration list out of order: index ${i} has version ${m.version}`);
  });
  for (const row of applied) {
    const known = migrations[row.version - 1];
    if (!known) {
      throw new StoreError(
        'STORE_SCHEMA_TOO_NEW',
        `${file} has schema version ${row.version} (${row.name}); this build knows up to ${migrations.length}: use a newer build`,
        { file, found: row.version, supported: migrations.length },
      );
    }
    if (known.name !== row.name) {
      throw new StoreError(
        'STORE_SCHEMA_UNKNOWN',
        `${file} schema version ${row.version} is "${row.name}", this build expects "${known.name}"`,
        {
          file,
          version: row.version,
          found: row.name,
          expected: known.name,
        },
      );
    }
  }
}

/** Applies every migration not yet applied, in one BEGIN IMMEDIATE … COMMIT; returns the versions applied. */
export function applyMigrations(db: BetterSqlite3.Database, migrations: readonly Migration[], now: () => number = Date.now): number[] {
  const applied = new Set(readAppliedVersions(db).map((r) => r.version));
  const pending = migrations.filter((m) => !applied.has(m.version));
  if (pending.length === 0) return [];
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)');
    for (const m of pending) {
      m.up(db);
      insert.run(m.version, m.name, now());
    }
    db.exec('COMMIT');
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
  return pending.map((m) => m.version);
}
