/**
 * The sync routes answer every error as JSON (docs/sync.md), also a failure behind the route: a block record of an
 * old block that fails its CRC on disk is a 500 with the store's code, not Hono's plain-text "Internal Server Error".
 * A real node on a real datadir; the corruption is bytes flipped in its segment file between two runs.
 */
import { openSync, readSync, writeSync, closeSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RealNode, startRealNode } from '../rpc/support/realNode.ts';

let node: RealNode | undefined;
afterAll(async () => {
  await node?.close();
});

/** Flips the bytes of the middle of the first segment file: inside an early block's record. */
function corruptFirstRecords(datadir: string): void {
  const file = join(datadir, 'segments', '00000001.seg');
  const size = statSync(file).size;
  const fd = openSync(file, 'r+');
  try {
    const at = Math.floor(size / 4);
    const buf = Buffer.alloc(16);
    readSync(fd, buf, 0, buf.length, at);
    for (let i = 0; i < buf.length; i++) buf[i] ^= 0xff;
    writeSync(fd, buf, 0, buf.length, at);
  } finally {
    closeSync(fd);
  }
}

describe('sync routes errors', () => {
  it('error: a corrupt old block record answers 500 JSON with the store code', async () => {
    const first = await startRealNode();
    for (let i = 0; i < 6; i++) await first.mine();
    const datadir = first.datadir;
    await first.close({ keepDatadir: true });
    corruptFirstRecords(datadir);
    node = await startRealNode({ datadir });
    const res = await fetch(node.url + 'xone/v1/blocks?from=0&count=7');
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('STORE_SEGMENT_CORRUPT');
    expect(body.error.message.length).toBeGreaterThan(0);
    // The route keeps answering; a range past the damage is served.
    expect((await fetch(node.url + 'xone/v1/status')).status).toBe(200);
  }, 90_000);
});
