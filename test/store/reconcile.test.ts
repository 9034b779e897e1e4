import {
  appendFileSync,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  closeSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syntheticChain, SPIKE_SHAPE } from '../../core/bench/store/syntheticBlocks.ts';
import { ChainStore, checkStore, type StoreLogger } from '../../core/store/index.ts';
import { datadirFactory } from './support/tmpDatadir.ts';
import { expectSameBytes } from './support/bytes.ts';

const newDir = datadirFactory();
const shape = { ...SPIKE_SHAPE, bodyBytes: 2000, receiptsBytes: 300, txs: 2 };
const seg = (datadir: string, id: number) => join(datadir, 'segments', `${String(id).padStart(8, '0')}.seg`);

function filled(blocks = 8): { datadir: string; chain: ReturnType<typeof syntheticChain> } {
  const datadir = newDir();
  const chain = syntheticChain(5, 0, blocks - 1, undefined, shape);
  const s = ChainStore.open({ datadir, maxSegmentBytes: 6000 });
  for (const b of chain) s.putBlock(b);
  s.close();
  return { datadir, chain };
}

function flipByte(file: string, offset: number): void {
  const fd = openSync(file, 'r+');
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, offset);
  b[0] ^= 0x40;
  writeSync(fd, b, 0, 1, offset);
  closeSync(fd);
}

function capture(): { logger: StoreLogger; lines: { obj: Record<string, unknown>; msg: string }[] } {
  const lines: { obj: Record<string, unknown>; msg: string }[] = [];
  const push = (obj: Record<string, unknown>, msg: string) => void lines.push({ obj, msg });
  return { logger: { info: push, warn: push, error: push }, lines };
}

describe('reconcile', () => {
  it('default: cuts bytes past the committed pointer, removes unreferenced files, logs one line with counts and bytes', () => {
    const { datadir, chain } = filled();
    appendFileSync(seg(datadir, 4), Buffer.alloc(777, 1));
    writeFileSync(seg(datadir, 9), Buffer.alloc(100, 2));
    writeFileSync(join(datadir, 'segments', 'notes.txt'), 'not ours');
    const { logger, lines } = capture();
    const s = ChainStore.open({ datadir }, { logger });
    expect(s.reconcileReport).toEqual({ cutFiles: 1, cutBytes: 777, removedFiles: 1, removedBytes: 100, checkedRecords: 4 });
    expect(lines.filter((l) => l.msg === 'reconcile')).toHaveLength(1);
    expect(existsSync(join(datadir, 'segments', 'notes.txt'))).toBe(true);
    expectSameBytes(s.getBody(chain[7].hash), chain[7].bodyRlp);
    s.close();
  });

  it('error: a flipped byte in the last committed record refuses the open, naming file and offset; nothing changes', () => {
    const { datadir } = filled();
    const file = seg(datadir, 4);
    flipByte(file, statSync(file).size - 10);
    const before = readFileSync(file);
    expect(() => ChainStore.open({ datadir })).toThrow(
      expect.objectContaining({ code: 'STORE_SEGMENT_CORRUPT', meta: expect.objectContaining({ file }) }),
    );
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('error: a flipped byte in an older committed record fails the read that meets it and db check names it', () => {
    const { datadir, chain } = filled();
    flipByte(seg(datadir, 1), 20);
    const s = ChainStore.open({ datadir });
    expect(() => s.getBody(chain[0].hash)).toThrow(/00000001\.seg: record at offset 0 fails its CRC-32C check/);
    expectSameBytes(s.getBody(chain[7].hash), chain[7].bodyRlp);
    s.close();
    const report = checkStore(datadir);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([expect.stringMatching(/00000001\.seg: record at offset 0 fails its CRC-32C check/)]);
  });

  it('error: a truncated committed segment is refused with both sizes; the file is left alone', () => {
    const { datadir } = filled();
    const file = seg(datadir, 2);
    const size = statSync(file).size;
    truncateSync(file, size - 5);
    expect(() => ChainStore.open({ datadir })).toThrow(
      expect.objectContaining({ code: 'STORE_SEGMENT_MISSING', meta: expect.objectContaining({ size: size - 5, committedSize: size }) }),
    );
    expect(statSync(file).size).toBe(size - 5);
    expect(statSync(seg(datadir, 4)).size).toBeGreaterThan(0);
  });

  it('error: a missing committed segment file is refused; other files are not cut or removed', () => {
    const { datadir } = filled();
    unlinkSync(seg(datadir, 3));
    appendFileSync(seg(datadir, 4), Buffer.alloc(50));
    const size4 = statSync(seg(datadir, 4)).size;
    expect(() => ChainStore.open({ datadir })).toThrow(/00000003\.seg is missing/);
    expect(statSync(seg(datadir, 4)).size).toBe(size4);
  });
});
