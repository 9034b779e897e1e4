import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { syntheticChain, SPIKE_SHAPE } from '../../core/bench/store/syntheticBlocks.ts';
import { ChainStore } from '../../core/store/index.ts';
import { datadirFactory } from './support/tmpDatadir.ts';

const newDir = datadirFactory();
const bin = join(import.meta.dirname, '..', '..', 'bin', 'xone.mjs');

describe('xone db check', () => {
  const datadir = newDir();
  const s = ChainStore.open({ datadir, maxSegmentBytes: 4096 });
  for (const b of syntheticChain(3, 0, 9, undefined, { ...SPIKE_SHAPE, bodyBytes: 1000, txs: 2 })) s.putBlock(b);
  s.close();

  it('default: a clean datadir prints a JSON summary and exits 0', () => {
    const out = JSON.parse(execFileSync(process.execPath, [bin, 'db', 'check', '--datadir', datadir], { encoding: 'utf8' }));
    expect(out).toMatchObject({ ok: true, blocks: 10, canonical: { from: 0, to: 9, count: 10 }, head: 9, txLookups: 20, problemCount: 0 });
    expect(out.segments.records).toBe(20);
  });

  it('error: a broken parent link is a problem; exit 1', () => {
    const db = new Database(join(datadir, 'chain.sqlite'));
    db.prepare('UPDATE blocks SET parent_hash = zeroblob(32) WHERE number = 5').run();
    db.close();
    const r = spawnSync(process.execPath, [bin, 'db', 'check', '--datadir', datadir], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).problems).toEqual(['canonical 5: parent hash does not match canonical 4']);
  });

  it('error: a datadir without a store exits 1 with a typed error', () => {
    const r = spawnSync(process.execPath, [bin, 'db', 'check', '--datadir', join(datadir, 'nope')], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { code: 'STORE_NOT_A_DATABASE' } });
  });
});
