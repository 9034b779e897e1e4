import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeSegmentFs } from '../../core/store/segment/segmentFs.ts';
import { SegmentReader } from '../../core/store/segment/segmentReader.ts';
import { SegmentWriter } from '../../core/store/segment/segmentWriter.ts';
import { datadirFactory } from './support/tmpDatadir.ts';

const newDir = datadirFactory();
const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe('SegmentWriter', () => {
  it('default: appended records read back by pointer with their CRC checked', () => {
    const dir = newDir();
    const w = new SegmentWriter({ segmentsDir: dir, maxSegmentBytes: 1 << 20 }, { fs: nodeSegmentFs });
    const at = w.append([bytes(10, 1), bytes(0, 0), bytes(5000, 3)]);
    expect(at).toEqual({ segment: 1, offsets: [0, 18, 26], endSize: 26 + 8 + 5000 });
    w.sync();
    const r = new SegmentReader(dir);
    expect(r.read(1, 0, 10)).toEqual(bytes(10, 1));
    expect(r.read(1, 18, 0)).toEqual(bytes(0, 0));
    expect(r.read(1, 26, 5000)).toEqual(bytes(5000, 3));
    expect(() => r.read(1, 0, 11)).toThrow(expect.objectContaining({ code: 'STORE_SEGMENT_CORRUPT' }));
    r.close();
    w.close();
  });

  it('behavior: rolls over at the size limit; one sync flushes both files and the directory once', () => {
    const dir = newDir();
    const w = new SegmentWriter({ segmentsDir: dir, maxSegmentBytes: 4096 }, { fs: nodeSegmentFs });
    w.append([bytes(3000, 1)]);
    const second = w.append([bytes(3000, 2)]);
    expect(second.segment).toBe(2);
    w.sync();
    expect(w.stats).toMatchObject({ fileSyncs: 2, dirSyncs: 1 });
    expect(readdirSync(dir).sort()).toEqual(['00000001.seg', '00000002.seg']);
    w.close();
  });

  it('behavior: rollbackTo cuts the file back and removes files created after the mark', () => {
    const dir = newDir();
    const w = new SegmentWriter({ segmentsDir: dir, maxSegmentBytes: 4096 }, { fs: nodeSegmentFs });
    w.append([bytes(100, 1)]);
    const mark = w.mark();
    w.append([bytes(2000, 2)]);
    w.append([bytes(3000, 3)]);
    w.rollbackTo(mark);
    expect(readdirSync(dir)).toEqual(['00000001.seg']);
    expect(statSync(join(dir, '00000001.seg')).size).toBe(108);
    expect(w.append([bytes(1, 9)]).offsets).toEqual([108]);
    w.close();
  });
});
