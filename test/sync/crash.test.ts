/**
 * A follower process SIGKILLed in the middle of a group-committed batch: its datadir reopens at the last durable
 * batch (the open one is gone, nothing half-written) and the follower catches up to the producer's head hash and
 * state root.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headerHash } from '../../core/chain/header/index.ts';
import { ChainService } from '../../core/chainService/chainService.ts';
import { bytesToHex } from '../../core/primitives/hex.ts';
import { Follower } from '../../core/sync/follower.ts';
import { HttpSyncSource } from '../../core/sync/source/httpSyncSource.ts';
import { chainServiceTarget } from '../../core/sync/target.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';
import { genesis, openProducer, serveSource, type Producer, type Served } from './support/chain.ts';

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

    // Restart in this process (one child start-up less): the datadir is what the crash left behind.
    const service = ChainService.open({ datadir, genesis, batch: 128 });
    try {
      // The first batch (32 blocks) was durable; the 16 blocks of the open one went with the process.
      expect(service.head().number).toBe(32n);
      const source = new HttpSyncSource({
        url: served.url,
        genesisHash: headerHash(genesis.genesisHeader),
        chainId: genesis.config.chainId,
      });
      await new Follower({ batch: 32, requestBlocks: 32 }, { target: chainServiceTarget(service), sources: [source] }).syncOnce();
      const head = producer.service.head();
      expect(service.head().number).toBe(72n);
      expect(bytesToHex(service.head().hash)).toBe(bytesToHex(head.hash));
      expect(bytesToHex(service.head().header.stateRoot)).toBe(bytesToHex(head.header.stateRoot));
      expect(service.durability().kind).toBe('Durable');
    } finally {
      service.close();
    }
  }, 60_000); // a child start-up (tsx, native addons): ~3 s idle, far more on a loaded 2-core box
});
