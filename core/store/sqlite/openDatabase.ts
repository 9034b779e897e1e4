/**
 * Opens `chain.sqlite` for the owning writer. Checks run from cheapest and least invasive first, and every refusal
 * happens before anything is written: not a SQLite file, a SQLite file that is not a chain store, a chain store
 * whose journal mode was changed behind our back, a schema from a newer build. Only then are the settings applied
 * and the migrations run.
 */
import { accessSync, closeSync, constants, fsyncSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { StoreError } from '../errors.ts';
import { applyMigrations, checkVersions, readAppliedVersions } from '../schema/migrate.ts';
import type { Migration } from '../schema/migration.ts';
import { SEGMENTS_DIR } from '../segment/segmentFiles.ts';
import { applyDurabilityPragmas, requireSetting, type SynchronousLevel } from './pragmas.ts';

/** Name of the SQLite file inside a datadir. */
const DB_FILE = 'chain.sqlite';

const SQLITE_MAGIC = 'SQLite format 3\0';

/** Creates the datadir and `segments/` if needed and proves both writable, or throws STORE_DATADIR_READONLY. */
export function prepareDatadir(datadir: string): void {
  for (const dir of [datadir, join(datadir, SEGMENTS_DIR)]) {
    try {
      mkdirSync(dir, { recursive: true });
      accessSync(dir, constants.W_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new StoreError('STORE_DATADIR_READONLY', `datadir ${dir} is not writable (${code ?? (err as Error).message})`, {
        dir,
        errno: code,
      });
    }
  }
}

/** Throws STORE_NOT_A_DATABASE unless `file` is absent, empty, or starts with the SQLite header. */
function requireSqliteHeader(file: string): void {
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    return;
  }
  if (size === 0) return;
  const fd = openSync(file, 'r');
  const head = Buffer.alloc(16);
  try {
    readSync(fd, head, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') !== SQLITE_MAGIC) {
    throw new StoreError('STORE_NOT_A_DATABASE', `${file} is not a SQLite database (first bytes ${head.subarray(0, 8).toString('hex')})`, {
      file,
    });
  }
}

/**
 * WAL pages past which a COMMIT checkpoints by itself. A reader that always holds a snapshot (the node's pin) keeps
 * the WAL from starting over, and past this size every COMMIT would checkpoint (2 more fsyncs each): the node settles
 * its pin well before (node.ts, WAL_SETTLE_BYTES).
 */
export const WAL_AUTOCHECKPOINT_PAGES = 4096;

/**
 * fsyncs the database file and its WAL (when there is one): the dev chain's clean close, whose connection runs with
 * synchronous=OFF (decision 0048), so nothing SQLite wrote is known to be on the disk before this.
 */
export function syncDatabaseFiles(db: Database.Database): void {
  for (const file of [db.name, `${db.name}-wal`]) {
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/** Options of `openWriterDatabase`. */
export interface OpenDatabaseOptions {
  datadir: string;
  migrations: readonly Migration[];
  synchronous?: SynchronousLevel;
}

/** Opens, checks, configures and migrates the writer's connection. */
export function openWriterDatabase({ datadir, migrations, synchronous = 'FULL' }: OpenDatabaseOptions): Database.Database {
  prepareDatadir(datadir);
  const file = join(datadir, DB_FILE);
  requireSqliteHeader(file);
  const db = new Database(file);
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    if (tables.length > 0 && !tables.includes('schema_version')) {
      throw new StoreError(
        'STORE_FOREIGN_DATABASE',
        `${file} is a SQLite database but not a chain store (tables: ${tables.slice(0, 5).join(', ')})`,
        {
          file,
          tables,
        },
      );
    }
    if (tables.length > 0) {
      // An existing store must still be in WAL: switching it silently would hide whoever changed it.
      requireSetting('journal_mode', String(db.pragma('journal_mode', { simple: true })).toLowerCase(), 'wal', file);
      checkVersions(readAppliedVersions(db), migrations, file);
    }
    applyDurabilityPragmas(db, file, synchronous);
    // A follower batch touches thousands of index pages (random tx hashes); a 64 MiB cache keeps them out of the WAL
    // until COMMIT. Checkpoints (2 syncs each) every 4096 WAL pages instead of 1000 cut their share of flushes.
    db.pragma('cache_size = -16384');
    db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    // SQLite keeps a WAL file at its largest size after a restart unless told otherwise: cut back to 4 MiB, so the
    // file's size (what the node watches to settle its pinned snapshot, node.ts) tells how much the WAL holds now.
    db.pragma(`journal_size_limit = ${4 * 1024 * 1024}`);
    // Multi-row OR REPLACE / plain INSERTs (ChunkedInsert) need a statement journal; in a temp file it costs more CPU
    // than the one-row statements it replaces (tx_lookup: 15.7 vs 7.0 ms per 1,408 rows), in memory it is cheaper
    // (6.4 ms). It holds one statement's (or one block savepoint's) changed pages and is freed at its end.
    db.pragma('temp_store = MEMORY');
    applyMigrations(db, migrations);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Opens a read-only connection for another thread; WAL lets it read beside the writer. */
export function openReaderDatabase(datadir: string): Database.Database {
  const file = join(datadir, DB_FILE);
  requireSqliteHeader(file);
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    requireSetting('journal_mode', String(db.pragma('journal_mode', { simple: true })).toLowerCase(), 'wal', file);
    return db;
  } catch (err) {
    if (err instanceof StoreError) throw err;
    throw new StoreError('STORE_NOT_A_DATABASE', `${file} cannot be opened read-only: ${(err as Error).message}`, { file });
  }
}
