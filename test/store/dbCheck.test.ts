import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { syntheticChain, SPIKE_SHAPE } from '../../core/bench/store/syntheticBlocks.ts';
import { main } from '../../core/cli/main.ts';
import { ChainStore } from '../../core/store/index.ts';
import { datadirFactory } from './support/tmpDatadir.ts';

const newDir = datadirFactory();
const bin = join(import.meta.dirname, '..', '..', 'bin', 'xone.mjs');

/** Runs the CLI in this process (the bin is exercised once below), returning exit code and parsed stdout. */
async function runCheck(datadir: string): Promise<{ code: number; out: Record<string, unknown> }> {
  let text = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((text += String(chunk)), true));
  try {
    const code = await main(['db', 'check', '--datadir', datadir]);
    return { code, out: JSON.parse(text) };
  } finally {
    spy.mockRestore();
    process.exitCode = undefined;
  }
}

describe('xone db check', () => {
  const datadir = newDir();
  const s = ChainStore.open({ datadir, maxSegmentBytes: 4096 });
  for (const b of syntheticChain(3, 0, 9, undefined, { ...SPIKE_SHAPE, bodyBytes: 1000, txs: 2 })) s.putBlock(b);
  s.close();

  it('default: the real bin prints a JSON summary of a clean datadir and exits 0', () => {
    const out = JSON.parse(execFileSync(process.execPath, [bin, 'db', 'check', '--datadir', datadir], { encoding: 'utf8' }));
    expect(out).toMatchObject({ ok: true, blocks: 10, canonical: { from: 0, to: 9, count: 10 }, head: 9, txLookups: 20, problemCount: 0 });
    expect(out.segments.records).toBe(20);
  }, 120_000);

  it('error: a broken parent link is a problem; exit 1', async () => {
    const db = new Database(join(datadir, 'chain.sqlite'));
    db.prepare('UPDATE blocks SET parent_hash = zeroblob(32) WHERE number = 5').run();
    db.close();
    const r = await runCheck(datadir);
    expect(r.code).toBe(1);
    expect(r.out.problems).toEqual(['canonical 5: parent hash does not match canonical 4']);
  });

  it('error: a datadir without a store exits 1 with a typed error', async () => {
    const r = await runCheck(join(datadir, 'nope'));
    expect(r.code).toBe(1);
    expect(r.out).toMatchObject({ ok: false, error: { code: 'STORE_NOT_A_DATABASE' } });
  });
});
