/**
 * Native addon calls announced to a thread's owner (core/primitives/nativeCalls.ts): the owner can claim the thread
 * only between calls, and no call starts after. Terminating a worker inside native libsecp256k1 aborts the whole
 * process about once in a hundred terminations ('terminate called after throwing an instance of Napi::Error', measured
 * with a bare worker in a recovery loop); here real workers are terminated mid-loop the way the RPC pool does it, and
 * this process must live on (without the claim, about one run of this test in ten would abort).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { closeNativeCalls, guardNativeCalls, nativeCall, NativeCallsClosedError } from '../../core/primitives/nativeCalls.ts';
import { nativeSecp256k1Available } from '../../core/primitives/secp256k1/index.ts';
import { spawnTsWorker, waitForReady } from '../../core/runtime/spawnTsWorker.ts';

describe('native calls announced to the thread owner', { timeout: 120_000 }, () => {
  it('behavior: the cell cannot be claimed during a call (nested ones too); once claimed, no call starts', () => {
    expect(nativeCall(() => 1)).toBe(1); // no cell registered: a plain call
    const control = new Int32Array(new SharedArrayBuffer(8));
    guardNativeCalls(control, 1);
    const during = nativeCall(() => nativeCall(() => closeNativeCalls(control, 1)));
    expect(during).toBe(false);
    expect(() =>
      nativeCall(() => {
        throw new Error('addon failed');
      }),
    ).toThrow('addon failed');
    expect(closeNativeCalls(control, 1)).toBe(true);
    expect(() => nativeCall(() => 2)).toThrow(NativeCallsClosedError);
    expect(control[0]).toBe(0);
  });

  it('safety: workers terminated in the middle of native secp256k1 loops, once their cell is claimed, never abort the process', async () => {
    expect(nativeSecp256k1Available()).toBe(true);
    for (let i = 0; i < 12; i++) {
      const control = new SharedArrayBuffer(4);
      const worker = spawnTsWorker(new URL('./fixtures/nativeLoopWorker.ts', import.meta.url), { control });
      await waitForReady(worker, 60_000);
      await sleep(5 + ((i * 7) % 25));
      let waits = 0;
      while (!closeNativeCalls(new Int32Array(control), 0)) {
        waits++;
        await sleep(1);
      }
      await worker.terminate();
      expect(waits).toBeLessThan(1_000);
    }
  });
});
