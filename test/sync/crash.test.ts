/**
 * A follower process SIGKILLed in the middle of a group-committed batch restarts from its last durable batch (the
 * open one is gone, nothing half-written) and catches up to the producer's head hash and state root.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex } from '../../core/primitives/hex.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';
import { openProducer, serveSource, type Producer, type Served } from './support/chain.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const newDatadir = datadirFactory();
let producer: Producer;
let served: Served;

beforeAll(async () => {
  producer = openProducer(newDatadir());
  await producer.produce(72, { txEvery: 3, txsPerBlock: 2 });
  served = await serveSource(producer.source);
});

afterAll(async () => {
  await served?.close();
  producer?.service.close();
});

type Line = Record<string, unknown> & { event: string };

/** Starts the child; `next(event)` resolves with the first line of that event; `exit` with the exit signal/code. */
function child(datadir: string, pauseAt: number) {
  const proc = spawn(
    process.execPath,
    [join(ROOT, 'bin/run-ts.mjs'), join(ROOT, 'test/sync/fixtures/followChild.ts'), datadir, served.url, String(pauseAt)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines: Line[] = [];
  const waiters: { event: string; resolve: (l: Line) => void }[] = [];
  createInterface({ input: proc.stdout }).on('line', (text) => {
    const line = JSON.parse(text) as Line;
    lines.push(line);
    for (const w of waiters.filter((x) => x.event === line.event)) w.resolve(line);
  });
  const exit = new Promise<string>((resolve) => proc.on('exit', (code, signal) => resolve(signal ?? String(code))));
  const next = (event: string): Promise<Line> =>
    new Promise((resolve, reject) => {
      const seen = lines.find((l) => l.event === event);
      if (seen) return resolve(seen);
      waiters.push({ event, resolve });
      void exit.then((how) => reject(new Error(`child exited (${how}) before "${event}"`)));
    });
  return { proc, next, exit };
}

describe('follower crash', () => {
  it('behavior: SIGKILL mid-batch, restart: resumes at the last durable batch and catches up to the same head', async () => {
    const datadir = newDatadir();
    const first = child(datadir, 2);
    expect((await first.next('start')).head).toBe(0);
    const mid = await first.next('mid-batch');
    expect(mid).toMatchObject({ head: 48, durability: 'Degraded' });
    first.proc.kill('SIGKILL');
    expect(await first.exit).toBe('SIGKILL');

    const second = child(datadir, 0);
    // The first batch (32 blocks) was durable; the 16 blocks of the open one went with the process.
    expect((await second.next('start')).head).toBe(32);
    const synced = await second.next('synced');
    const head = producer.service.head();
    expect(synced).toMatchObject({ head: 72, hash: bytesToHex(head.hash), stateRoot: bytesToHex(head.header.stateRoot) });
    expect(await second.exit).toBe('0');
  }, 90_000); // two child start-ups (tsx, native addons): ~3 s idle, far more on a loaded 2-core box
});
