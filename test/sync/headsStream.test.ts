/**
 * Regression: the `/heads` stream outlives the connect deadline. The deadline (statusTimeoutMs) was given to fetch as
 * a timeout signal, which also governs the body, so every head stream died after 5 s ("Head stream ended; polling
 * status") and the follower fell back to polling until it resubscribed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headerHash } from '../../core/chain/header/index.ts';
import type { SyncHead } from '../../core/sync/wire.ts';
import { HttpSyncSource } from '../../core/sync/source/httpSyncSource.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';
import { genesis, openProducer, serveSource, type Producer, type Served } from './support/chain.ts';

const newDatadir = datadirFactory();
let producer: Producer;
let served: Served;

beforeAll(async () => {
  producer = openProducer(newDatadir());
  await producer.produce(1);
  served = await serveSource(producer.source, undefined, 100);
});
afterAll(async () => {
  await served?.close();
  producer?.service.close();
});

describe('HttpSyncSource heads stream', () => {
  it('behavior: the stream stays up past the connect deadline and still delivers announced heads', async () => {
    // Long enough for the headers to arrive on a loaded machine, short enough to see the stream outlive it.
    const timeoutMs = 1_500;
    const source = new HttpSyncSource({
      url: served.url,
      genesisHash: headerHash(genesis.genesisHeader),
      chainId: genesis.config.chainId,
      statusTimeoutMs: timeoutMs,
    });
    await source.status(); // the server and the client are warm before the deadline starts counting
    const heads: SyncHead[] = [];
    let ended: { err?: Error } | undefined;
    const sub = source.heads(
      (h) => heads.push(h),
      (err) => (ended = { ...(err ? { err } : {}) }),
    );
    try {
      // Past two connect deadlines with keep-alives only: the stream must still be open.
      await new Promise((r) => setTimeout(r, 2.5 * timeoutMs));
      expect(ended).toBeUndefined();
      await producer.produce(1);
      const deadline = Date.now() + 20_000;
      while (heads.at(-1)?.number !== 2n && ended === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(ended).toBeUndefined();
      expect(heads.at(-1)?.number).toBe(2n);
    } finally {
      sub.close();
    }
  });
});
