import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { syntheticChain } from '../../core/bench/store/syntheticBlocks.ts';
import { ChainStore } from '../../core/store/index.ts';
import { MIGRATIONS } from '../../core/store/schema/migrations.ts';
import { requireSetting } from '../../core/store/sqlite/pragmas.ts';
import { datadirFactory } from './support/tmpDatadir.ts';
import { connectionOf } from '../../core/store/connection.ts';

const newDir = datadirFactory();

function filledStore(): string {
  const datadir = newDir();
  const s = ChainStore.open({ datadir });
  for (const b of syntheticChain(1, 0, 2)) s.putBlock(b);
  s.close();
  return datadir;
}

describe('ChainStore.open refusals', () => {
  it('default: a fresh datadir reads back WAL and synchronous=FULL (2)', () => {
    const datadir = newDir();
    const s = ChainStore.open({ datadir });
    expect(connectionOf(s).pragma('journal_mode', { simple: true })).toBe('wal');
    expect(connectionOf(s).pragma('synchronous', { simple: true })).toBe(2);
    s.close();
  });

  it('error: a setting read back with another value names setting, found and required', () => {
    expect(() => requireSetting('synchronous', 1, 2, 'x.sqlite')).toThrow('x.sqlite: synchronous is 1, required 2');
  });

  it('error: a chain store switched to journal_mode=DELETE is refused untouched', () => {
    const datadir = filledStore();
    const file = join(datadir, 'chain.sqlite');
    const raw = new Database(file);
    raw.pragma('journal_mode = DELETE');
    raw.close();
    const before = readFileSync(file);
    expect(() => ChainStore.open({ datadir })).toThrow(
      expect.objectContaining({
        code: 'STORE_PRAGMA_MISMATCH',
        meta: expect.objectContaining({ setting: 'journal_mode', found: 'delete', required: 'wal' }),
      }),
    );
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('error: a foreign file in place of chain.sqlite is refused and left as it was', () => {
    const datadir = newDir();
    const file = join(datadir, 'chain.sqlite');
    writeFileSync(file, 'this is my shopping list, not a database\n'.repeat(100));
    const before = readFileSync(file);
    expect(() => ChainStore.open({ datadir })).toThrow(expect.objectContaining({ code: 'STORE_NOT_A_DATABASE' }));
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('error: some other SQLite database is refused, not converted', () => {
    const datadir = newDir();
    const raw = new Database(join(datadir, 'chain.sqlite'));
    raw.exec('CREATE TABLE recipes (name TEXT)');
    raw.close();
    expect(() => ChainStore.open({ datadir })).toThrow(/not a chain store \(tables: recipes\)/);
  });

  it('error: a schema written by a newer build is refused untouched', () => {
    const datadir = filledStore();
    const raw = new Database(join(datadir, 'chain.sqlite'));
    raw.prepare('INSERT INTO schema_version VALUES (?, ?, 0)').run(MIGRATIONS.length + 1, 'future');
    raw.close();
    expect(() => ChainStore.open({ datadir })).toThrow(expect.objectContaining({ code: 'STORE_SCHEMA_TOO_NEW' }));
    const again = new Database(join(datadir, 'chain.sqlite'), { readonly: true });
    expect(again.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(MIGRATIONS.length + 1);
    again.close();
  });

  it('behavior: migrations are appended, never re-run; a later migration applies on reopen', () => {
    const datadir = filledStore();
    const extra = {
      version: MIGRATIONS.length + 1,
      name: 'test_state',
      up: (db: Database.Database) => db.exec('CREATE TABLE accounts (a BLOB PRIMARY KEY)'),
    };
    const s = ChainStore.open({ datadir }, { migrations: [...MIGRATIONS, extra] });
    expect(connectionOf(s).prepare('SELECT name FROM schema_version ORDER BY version').pluck().all()).toEqual([
      ...MIGRATIONS.map((m) => m.name),
      'test_state',
    ]);
    s.close();
    const renamed = { ...extra, name: 'other' };
    expect(() => ChainStore.open({ datadir }, { migrations: [...MIGRATIONS, renamed] })).toThrow(
      expect.objectContaining({ code: 'STORE_SCHEMA_UNKNOWN' }),
    );
  });

  it("error: a second writer on a datadir is refused while the first lives; a dead owner's lock is taken over", () => {
    const datadir = newDir();
    const first = ChainStore.open({ datadir });
    expect(() => ChainStore.open({ datadir })).toThrow(
      expect.objectContaining({ code: 'STORE_LOCKED', meta: expect.objectContaining({ pid: process.pid }) }),
    );
    first.close();
    const dead = spawnSync(process.execPath, ['-e', '']).pid as number;
    writeFileSync(join(datadir, 'LOCK'), `${dead}\n`);
    const second = ChainStore.open({ datadir });
    expect(readFileSync(join(datadir, 'LOCK'), 'utf8')).toBe(`${process.pid}\n`);
    second.close();
  });

  it('error: a read-only datadir is refused with STORE_DATADIR_READONLY and nothing changes', () => {
    const datadir = filledStore();
    const snapshot = () =>
      execFileSync('sh', ['-c', `cd ${datadir} && ls -lA --time-style=+%s.%N . segments && sha256sum chain.sqlite segments/*`], {
        encoding: 'utf8',
      });
    const before = snapshot();
    // Root ignores permission bits: as root the datadir becomes a read-only bind mount of itself; where root may not
    // mount, the bits are cleared and the store opens in a child running as an unprivileged user.
    const asRoot = process.getuid?.() === 0;
    let mounted = false;
    if (asRoot) {
      try {
        execFileSync('mount', ['--bind', datadir, datadir], { stdio: 'ignore' });
        mounted = true;
        execFileSync('mount', ['-o', 'remount,bind,ro', datadir], { stdio: 'ignore' });
      } catch {
        if (mounted) execFileSync('umount', [datadir]);
        mounted = false;
      }
    }
    if (!mounted) execFileSync('chmod', ['-R', 'a-w', datadir]);
    try {
      if (mounted || !asRoot) {
        expect(() => ChainStore.open({ datadir })).toThrow(expect.objectContaining({ code: 'STORE_DATADIR_READONLY' }));
      } else {
        const child = join(import.meta.dirname, 'support', 'openStoreChild.ts');
        const runTs = join(import.meta.dirname, '..', '..', 'bin', 'run-ts.mjs');
        const out = execFileSync(process.execPath, [runTs, child, datadir], { encoding: 'utf8', uid: 65534, gid: 65534 });
        expect(JSON.parse(out)).toMatchObject({ code: 'STORE_DATADIR_READONLY' });
      }
    } finally {
      if (mounted) execFileSync('umount', [datadir]);
      else execFileSync('chmod', ['-R', 'u+w', datadir]);
    }
    expect(snapshot()).toBe(before);
  });
});
