import { describe, expect, it } from 'vitest';
import { spawnTsWorker, waitForReady } from '../../core/runtime/spawnTsWorker.ts';

describe('spawnTsWorker', () => {
  it('default: runs a .ts entry in a real worker thread with data, shared memory and transfers', async () => {
    const shared = new SharedArrayBuffer(4);
    const worker = spawnTsWorker(new URL('./fixtures/echoWorker.ts', import.meta.url), { greeting: 'hi', shared });
    try {
      await waitForReady(worker, 20_000);
      expect(new Int32Array(shared)[0]).toBe(42);
      const buf = new Uint8Array([1, 2, 3]).buffer;
      const reply = new Promise<{ greeting: string; sum: number; buf: ArrayBuffer }>((resolve) => worker.once('message', resolve));
      worker.postMessage({ buf }, [buf]);
      expect(buf.byteLength).toBe(0); // moved, not copied
      const r = await reply;
      expect(r.greeting).toBe('hi');
      expect(r.sum).toBe(6);
      expect(r.buf.byteLength).toBe(3);
    } finally {
      await worker.terminate();
    }
  });

  it('error: an entry that does not exist rejects waitForReady', async () => {
    const worker = spawnTsWorker(new URL('./fixtures/noSuchWorker.ts', import.meta.url), {});
    await expect(waitForReady(worker, 20_000)).rejects.toThrow();
    await worker.terminate();
  });
});
