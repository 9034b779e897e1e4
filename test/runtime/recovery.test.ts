import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from 'node:worker_threads';
import { createMetrics } from '../../core/metrics/index.ts';
import { keccak256 } from '../../core/primitives/keccak.ts';
import { addressFromPrivateKey, defaultSecp256k1, SECP256K1_N } from '../../core/primitives/secp256k1/index.ts';
import { InThreadSenderRecovery, RecoveryPool, SenderRecoveryError, type RecoveryItem } from '../../core/runtime/recovery/index.ts';

// Real signatures from 8 keys over distinct messages.
const backend = defaultSecp256k1();
const keys = Array.from({ length: 8 }, (_, i) => keccak256(new TextEncoder().encode(`key ${i}`)));
const addresses = keys.map((k) => addressFromPrivateKey(k));
function signed(n: number): { items: RecoveryItem[]; expected: Uint8Array[] } {
  const items: RecoveryItem[] = [];
  const expected: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const hash = keccak256(new TextEncoder().encode(`message ${i}`));
    const { r, s, recovery } = backend.sign(hash, keys[i % keys.length]);
    items.push({ hash, r, s, recovery });
    expected.push(addresses[i % keys.length]);
  }
  return { items, expected };
}
// An r that is the x of no curve point: recovery has no answer.
function noPointR(): bigint {
  const h = new Uint8Array(32).fill(1);
  for (let r = 1n; ; r++) {
    try {
      backend.recoverPublicKey(h, r, 1n, 0);
    } catch {
      return r;
    }
  }
}
const fixture = signed(300);
const hex = (a: Uint8Array[]): string[] => a.map((b) => Buffer.from(b).toString('hex'));
const errorOf = async (p: Promise<unknown>): Promise<SenderRecoveryError> => {
  try {
    await p;
  } catch (err) {
    return err as SenderRecoveryError;
  }
  throw new Error('expected a rejection');
};

describe('InThreadSenderRecovery', () => {
  it('default: recovers every sender in order', async () => {
    const rec = new InThreadSenderRecovery();
    expect(hex(await rec.recover(fixture.items.slice(0, 40)))).toEqual(hex(fixture.expected.slice(0, 40)));
  });

  it('error: a malformed item is refused with its index before any work', async () => {
    const rec = new InThreadSenderRecovery();
    const items = fixture.items.slice(0, 5);
    const cases: [Partial<RecoveryItem>, string][] = [
      [{ hash: new Uint8Array(31) }, 'hash'],
      [{ r: 0n }, 'r out of range'],
      [{ s: SECP256K1_N }, 's out of range'],
      [{ recovery: 2 as 0 }, 'recovery'],
    ];
    for (const [patch, text] of cases) {
      const err = await errorOf(rec.recover([...items.slice(0, 3), { ...items[3], ...patch }]));
      expect(err).toBeInstanceOf(SenderRecoveryError);
      expect(err.code).toBe('RECOVERY_BAD_INPUT');
      expect(err.meta.index).toBe(3);
      expect(err.message).toContain(text);
    }
  });

  it('error: a signature with no public key is RECOVERY_INVALID_SIGNATURE with its index', async () => {
    const items = fixture.items.slice(0, 10);
    items[6] = { ...items[6], r: noPointR() };
    const err = await errorOf(new InThreadSenderRecovery().recover(items));
    expect(err.code).toBe('RECOVERY_INVALID_SIGNATURE');
    expect(err.meta.index).toBe(6);
  });
});

describe('RecoveryPool (2 real worker threads)', () => {
  const metrics = createMetrics({ processMetrics: false });
  const pool = new RecoveryPool({ workers: 2 }, { metrics });
  beforeAll(() => pool.init(), 60_000);
  afterAll(() => pool.close());

  it('default: a big batch is split across workers and comes back in order', async () => {
    expect(hex(await pool.recover(fixture.items))).toEqual(hex(fixture.expected));
    const text = await metrics.register.metrics();
    expect(text).toMatch(/^xone_recovery_queue_length 0$/m);
    expect(text).toMatch(/^xone_recovery_seconds_count [1-9]/m);
  });

  it('behavior: concurrent batches and small (inline) batches all get their own answers', async () => {
    const a = fixture.items.slice(0, 150);
    const b = fixture.items.slice(150);
    const small = fixture.items.slice(10, 20);
    const [ra, rb, rs] = await Promise.all([pool.recover(a), pool.recover(b), pool.recover(small)]);
    expect(hex(ra)).toEqual(hex(fixture.expected.slice(0, 150)));
    expect(hex(rb)).toEqual(hex(fixture.expected.slice(150)));
    expect(hex(rs)).toEqual(hex(fixture.expected.slice(10, 20)));
  });

  it('error: an invalid signature in the second chunk reports its index in the whole batch', async () => {
    const items = [...fixture.items];
    items[250] = { ...items[250], r: noPointR() };
    const err = await errorOf(pool.recover(items));
    expect(err.code).toBe('RECOVERY_INVALID_SIGNATURE');
    expect(err.meta.index).toBe(250);
    expect(hex(await pool.recover(fixture.items))).toEqual(hex(fixture.expected)); // the pool is still fine
  });

  it('error: a bad item is refused before it reaches a worker', async () => {
    const items = [...fixture.items];
    items[200] = { ...items[200], hash: new Uint8Array(0) };
    const err = await errorOf(pool.recover(items));
    expect(err.code).toBe('RECOVERY_BAD_INPUT');
    expect(err.meta.index).toBe(200);
  });
});

describe('RecoveryPool faults', () => {
  it('behavior: a worker killed mid-batch loses nothing; the pool carries on with the rest', { timeout: 60_000 }, async () => {
    const pool = new RecoveryPool({ workers: 2 });
    await pool.init();
    try {
      const big = signed(600);
      const slots = (pool as unknown as { slots: { worker: Worker }[] }).slots;
      const victim = slots[0].worker;
      // The victim's answer to its chunk, so it is stopped only once idle: terminating a thread inside the native
      // secp256k1 call aborts the whole process ("terminate called after throwing an instance of 'Napi::Error'").
      const idle = new Promise((resolve) => victim.once('message', resolve));
      const pending = pool.recover(big.items);
      // Injected fault: the worker dies (its 'error' event, as an uncaught exception in it raises) while its chunk is
      // in flight.
      victim.emit('error', new Error('injected: worker died'));
      expect(hex(await pending)).toEqual(hex(big.expected));
      expect(pool.liveWorkers()).toBe(1);
      expect(hex(await pool.recover(fixture.items))).toEqual(hex(fixture.expected));
      await idle;
      await victim.terminate();
    } finally {
      await pool.close();
    }
    expect((await errorOf(pool.recover(fixture.items))).code).toBe('RECOVERY_CLOSED');
  });

  it('behavior: on demand, the first big batch starts the workers, and they stop when idle', { timeout: 60_000 }, async () => {
    const pool = new RecoveryPool({ workers: 2, onDemand: true, idleStopMs: 300 });
    await pool.init(); // proves a worker starts, then stops it
    try {
      expect(pool.liveWorkers()).toBe(0);
      expect(hex(await pool.recover(fixture.items))).toEqual(hex(fixture.expected)); // in this thread, workers starting
      for (let i = 0; i < 200 && pool.liveWorkers() < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(pool.liveWorkers()).toBe(2);
      expect(hex(await pool.recover(fixture.items))).toEqual(hex(fixture.expected)); // through the workers
      for (let i = 0; i < 100 && pool.liveWorkers() > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(pool.liveWorkers()).toBe(0);
      expect(hex(await pool.recover(fixture.items))).toEqual(hex(fixture.expected));
    } finally {
      await pool.close();
    }
  });

  it(
    'behavior: on demand with keepAfterInit, the workers init() started serve the first batch, then stop when idle',
    { timeout: 60_000 },
    async () => {
      let pooled = 0;
      const recoveryQueueLength = { set() {}, inc: (v = 1) => void (pooled += v), dec() {} };
      const metrics = { recoveryQueueLength, recoverySeconds: createMetrics({ processMetrics: false }).recoverySeconds };
      const pool = new RecoveryPool({ workers: 2, onDemand: true, idleStopMs: 300, keepAfterInit: true }, { metrics });
      await pool.init();
      try {
        expect(pool.liveWorkers()).toBe(2);
        expect(hex(await pool.recover(fixture.items))).toEqual(hex(fixture.expected));
        expect(pooled).toBe(fixture.items.length); // every item went to the workers, none to this thread
        for (let i = 0; i < 100 && pool.liveWorkers() > 0; i++) await new Promise((r) => setTimeout(r, 50));
        expect(pool.liveWorkers()).toBe(0);
      } finally {
        await pool.close();
      }
    },
  );

  it(
    'behavior: on demand, workers start for a caller that awaits only this thread (a batch import loop)',
    { timeout: 120_000 },
    async () => {
      const pool = new RecoveryPool({ workers: 2, onDemand: true });
      await pool.init();
      try {
        // Each answer settles in this thread until the workers are up; the loop itself never waits for a timer or I/O.
        const deadline = Date.now() + 90_000;
        let batches = 0;
        while (pool.liveWorkers() < 2 && Date.now() < deadline) {
          expect(hex(await pool.recover(fixture.items))).toEqual(hex(fixture.expected));
          batches++;
        }
        expect(pool.liveWorkers()).toBe(2);
        expect(batches).toBeGreaterThan(0);
        expect(hex(await pool.recover(fixture.items))).toEqual(hex(fixture.expected)); // through the workers
      } finally {
        await pool.close();
      }
    },
  );

  it('error: on demand, a bad signature in a big first batch is named by its index in the batch', { timeout: 60_000 }, async () => {
    const pool = new RecoveryPool({ workers: 2, onDemand: true });
    await pool.init();
    try {
      const items = [...fixture.items];
      items[200] = { ...items[200], r: noPointR() };
      const err = await errorOf(pool.recover(items));
      expect(err.code).toBe('RECOVERY_INVALID_SIGNATURE');
      expect(err.meta.index).toBe(200);
    } finally {
      await pool.close();
    }
  });

  it('behavior: on demand, the workers take the rest of a big first batch once they are up', { timeout: 120_000 }, async () => {
    let pooled = 0;
    const recoveryQueueLength = { set() {}, inc: (v = 1) => void (pooled += v), dec() {} };
    const metrics = { recoveryQueueLength, recoverySeconds: createMetrics({ processMetrics: false }).recoverySeconds };
    const pool = new RecoveryPool({ workers: 2, onDemand: true }, { metrics });
    // Sized from this run's own figures: the batch takes this thread 4x as long as starting the workers took.
    let t = performance.now();
    await pool.init();
    const startMs = performance.now() - t;
    t = performance.now();
    new InThreadSenderRecovery().recoverSync(fixture.items);
    const perItemMs = (performance.now() - t) / fixture.items.length;
    const copies = Math.max(1, Math.ceil((4 * startMs) / perItemMs / fixture.items.length));
    const items = Array.from({ length: copies }, () => fixture.items).flat();
    try {
      const got = await pool.recover(items);
      expect(got.length).toBe(items.length);
      expect(hex(got.slice(-300))).toEqual(hex(fixture.expected));
      expect(pooled).toBeGreaterThan(0);
      expect(pooled).toBeLessThan(items.length);
    } finally {
      await pool.close();
    }
  });

  it('behavior: close() with chunks in flight answers the caller and lets each worker finish its chunk', { timeout: 120_000 }, async () => {
    // Terminating a worker inside the native secp256k1 call aborted the whole process (CI of 4bf9dbf).
    const pool = new RecoveryPool({ workers: 2 });
    await pool.init();
    const items = Array.from({ length: 20 }, () => fixture.items).flat();
    const answer = pool.recover(items);
    await new Promise((r) => setTimeout(r, 30)); // the workers are inside their chunks
    await pool.close();
    const got = await answer;
    expect(got.length).toBe(items.length);
    expect(hex(got.slice(-300))).toEqual(hex(fixture.expected));
  });

  it('error: a pool of zero workers is refused', () => {
    expect(() => new RecoveryPool({ workers: 0 })).toThrow(RangeError);
  });
});

describe('createSenderRecovery', () => {
  it('args: workers 0 recovers in the calling thread; workers 1 starts a pool', { timeout: 60_000 }, async () => {
    const { createSenderRecovery } = await import('../../core/runtime/recovery/index.ts');
    const inline = await createSenderRecovery({ workers: 0 });
    expect(inline).toBeInstanceOf(InThreadSenderRecovery);
    const pool = await createSenderRecovery({ workers: 1 });
    try {
      expect(pool).toBeInstanceOf(RecoveryPool);
      expect(hex(await pool.recover(fixture.items))).toEqual(hex(fixture.expected));
    } finally {
      await pool.close();
    }
  });
});

describe('defaultRecoveryWorkers', () => {
  it('default: cores − 2 as in the seeds, at least 2 (measured on 2 cores)', async () => {
    const { defaultRecoveryWorkers } = await import('../../core/runtime/recovery/index.ts');
    expect([1, 2, 4, 8, 20].map((c) => defaultRecoveryWorkers(c))).toEqual([2, 2, 2, 6, 18]);
  });
});
