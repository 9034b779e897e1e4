/**
 * Producer + followers over real HTTP on 127.0.0.1 with real datadirs: catch-up in group-committed batches, the same
 * head hash and state root on two followers, tx forwarding to the producer; head following from the SSE stream alone
 * and by polling when the stream is refused; the routes' bounds in count and bytes (in-process `app.request`).
 * One file so the (slow, on a loaded box) module start-up is paid once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headerHash } from '../../core/chain/header/index.ts';
import { createCapturingLogger } from '../../core/log/capturingLogger.ts';
import { ChainService } from '../../core/chainService/chainService.ts';
import { bytesToHex } from '../../core/primitives/hex.ts';
import { splitRlpStream } from '../../core/primitives/rlp.ts';
import { Follower } from '../../core/sync/follower.ts';
import { MAX_TX_BYTES } from '../../core/sync/options.ts';
import { formatProgress, type SyncProgress } from '../../core/sync/progress.ts';
import { BLOCKS_CONTENT_TYPE, createSyncRoutes } from '../../core/sync/serving/routes.ts';
import { HttpSyncSource } from '../../core/sync/source/httpSyncSource.ts';
import { chainServiceTarget } from '../../core/sync/target.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';
import { genesis, openProducer, serveSource, transfer, until, type Producer, type Served } from './support/chain.ts';

describe('catch-up and forwarding', () => {
  const newDatadir = datadirFactory();
  const genesisHash = headerHash(genesis.genesisHeader);
  let producer: Producer;
  let served: Served;
  const services: ChainService[] = [];
  const followers: Follower[] = [];

  beforeAll(async () => {
    producer = openProducer(newDatadir());
    await producer.produce(40, { txEvery: 4, txsPerBlock: 3 });
    served = await serveSource(producer.source, undefined, 300);
  });

  afterAll(async () => {
    for (const f of followers) await f.stop();
    await served?.close();
    for (const s of services) s.close();
    producer?.service.close();
  });

  function follower(batch: number, progress?: SyncProgress[]) {
    const service = ChainService.open({ datadir: newDatadir(), genesis, batch });
    services.push(service);
    const logger = createCapturingLogger();
    const source = new HttpSyncSource({ url: served.url, genesisHash, chainId: genesis.config.chainId, headsIdleMs: 2_000 });
    const f = new Follower(
      { batch, requestBlocks: 16, pollMs: 100, progressMs: 0 },
      { target: chainServiceTarget(service), sources: [source], logger, ...(progress ? { onProgress: (p) => progress.push(p) } : {}) },
    );
    followers.push(f);
    return { service, follower: f, logger };
  }

  describe('Follower over HTTP', () => {
    it('default: two followers catch up and then follow announced heads to the same hash and state root', async () => {
      const progress: SyncProgress[] = [];
      const a = follower(8, progress);
      const b = follower(128);
      a.follower.start();
      b.follower.start();
      const level = (s: ChainService) => bytesToHex(s.head().hash) === bytesToHex(producer.service.head().hash);
      await until(() => level(a.service) && level(b.service), 15_000, 'both followers at the producer head');
      expect(a.service.durability().kind).toBe('Durable');
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.at(-1)?.target).toBe(40n);
      expect(progress.some((p) => p.txPerSec > 0)).toBe(true);

      // New blocks reach the followers through the head stream (poll interval is 100 ms; either way they follow).
      await producer.produce(3, { txEvery: 1 });
      await until(() => level(a.service) && level(b.service), 10_000, 'both followers at the new head');
      for (const f of [a, b]) {
        expect(f.service.head().number).toBe(43n);
        expect(bytesToHex(f.service.head().header.stateRoot)).toBe(bytesToHex(producer.service.head().header.stateRoot));
        expect(f.service.store.getCanonicalHash(20)).toEqual(producer.service.store.getCanonicalHash(20));
      }
      expect(a.logger.records.filter((r) => r.level === 'warn' || r.level === 'error')).toEqual([]);
    });

    it('behavior: a raw transaction sent to a follower reaches the producer; a refusal comes back with its geth text', async () => {
      const { follower: f } = follower(16);
      const tx = transfer(1000n);
      const hash = await f.submitTx(tx.raw);
      expect(hash).toEqual(new Uint8Array(32).fill(7));
      expect(producer.submitted.map(bytesToHex)).toContain(bytesToHex(tx.raw));
      await expect(f.submitTx(tx.raw)).rejects.toMatchObject({ code: 'SYNC_TX_REFUSED', message: 'already known' });
    });

    it('error: the serving routes refuse malformed ranges with 400', async () => {
      for (const q of ['from=x', 'from=1&count=0', 'from=1&count=129', 'from=-1']) {
        const res = await fetch(`${served.url}/xone/v1/blocks?${q}`);
        expect(res.status, q).toBe(400);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('SYNC_BAD_REQUEST');
      }
      const beyond = await fetch(`${served.url}/xone/v1/blocks?from=1000`);
      expect(beyond.headers.get('x-xone-count')).toBe('0');
    });
  });
});

describe('heads', () => {
  const newDatadir = datadirFactory();
  let producer: Producer;
  const servers: Served[] = [];
  const services: ChainService[] = [];
  const followers: Follower[] = [];

  beforeAll(async () => {
    producer = openProducer(newDatadir());
    await producer.produce(2);
  });

  afterAll(async () => {
    for (const f of followers) await f.stop();
    for (const s of servers) await s.close();
    for (const s of services) s.close();
    producer?.service.close();
  });

  function follower(url: string, pollMs: number) {
    const service = ChainService.open({ datadir: newDatadir(), genesis, batch: 16 });
    services.push(service);
    const logger = createCapturingLogger();
    const source = new HttpSyncSource({ url, genesisHash: headerHash(genesis.genesisHeader), chainId: genesis.config.chainId });
    const f = new Follower({ batch: 16, pollMs, idlePollMs: 60_000 }, { target: chainServiceTarget(service), sources: [source], logger });
    followers.push(f);
    f.start();
    return { service, logger };
  }

  const level = (s: ChainService): boolean => bytesToHex(s.head().hash) === bytesToHex(producer.service.head().hash);

  describe('head following', () => {
    it('default: announcements alone bring new blocks (no polling in the window)', async () => {
      const served = await serveSource(producer.source);
      servers.push(served);
      const { service, logger } = follower(served.url, 60_000);
      await until(() => level(service), 10_000, 'initial catch-up');
      await producer.produce(2);
      await until(() => level(service), 5_000, 'the announced head');
      expect(service.head().number).toBe(producer.service.head().number);
      expect(logger.records.filter((r) => r.msg === 'Head stream ended; polling status')).toEqual([]);
    });

    it('behavior: without a head stream the follower polls /status and still follows', async () => {
      const served = await serveSource(producer.source, (app) => app.get('/xone/v1/heads', (c) => c.text('no streams here', 503)));
      servers.push(served);
      const { service, logger } = follower(served.url, 100);
      await until(() => level(service), 10_000, 'initial catch-up');
      await producer.produce(1);
      await until(() => level(service), 5_000, 'the polled head');
      expect(logger.records.some((r) => r.msg === 'Head stream ended; polling status' && String(r.ctx.reason).includes('HTTP 503'))).toBe(
        true,
      );
      expect(logger.records.filter((r) => r.msg === 'Dropped peer')).toEqual([]);
    });
  });
});

describe('routes', () => {
  const newDatadir = datadirFactory();
  let producer: Producer;

  beforeAll(async () => {
    producer = openProducer(newDatadir());
    await producer.produce(6, { txEvery: 2, txsPerBlock: 2 });
  });

  afterAll(() => producer?.service.close());

  describe('sync routes', () => {
    it('default: /status names the chain and the durable head', async () => {
      const app = createSyncRoutes({ source: producer.source });
      const status = (await (await app.request('/status')).json()) as Record<string, unknown>;
      expect(status).toMatchObject({
        protocol: 'xone/1',
        chainId: 1337,
        head: { number: 6 },
        clientVersion: expect.stringMatching(/^xone-ts\//),
      });
      expect(status.genesisHash).toMatch(/^0x[0-9a-f]{64}$/);
    });

    it('behavior: /blocks returns consecutive raw blocks, bounded by count, head and bytes (never less than one)', async () => {
      const sizes = [1, 2, 3].map((n) => (producer.source.blockRlp(BigInt(n)) as Uint8Array).length);
      const app = createSyncRoutes({ source: producer.source, maxBlocks: 4, maxBytes: sizes[0] + sizes[1] });
      const res = await app.request('/blocks?from=1&count=4');
      expect(res.headers.get('content-type')).toBe(BLOCKS_CONTENT_TYPE);
      expect(res.headers.get('x-xone-count')).toBe('2');
      const blocks = splitRlpStream(new Uint8Array(await res.arrayBuffer()));
      expect(blocks).toEqual([1n, 2n].map((n) => producer.source.blockRlp(n)));
      const tiny = createSyncRoutes({ source: producer.source, maxBytes: 10 });
      expect((await tiny.request('/blocks?from=3&count=3')).headers.get('x-xone-count')).toBe('1');
      expect((await app.request('/blocks?from=5')).headers.get('x-xone-count')).toBe('2');
      expect((await app.request('/blocks?from=1&count=5')).status).toBe(400);
    });

    it('error: /tx refuses an empty or oversized body', async () => {
      const app = createSyncRoutes({ source: producer.source });
      expect((await app.request('/tx', { method: 'POST', body: new Uint8Array(0) })).status).toBe(400);
      expect((await app.request('/tx', { method: 'POST', body: new Uint8Array(MAX_TX_BYTES + 1) })).status).toBe(413);
      expect(producer.submitted).toEqual([]);
    });

    it('default: a progress line for a TTY', () => {
      expect(formatProgress({ head: 1024n, target: 4096n, blocksPerSec: 812.4, txPerSec: 9744, etaSec: 3.8, peers: 1 })).toBe(
        'sync 1,024/4,096 (25.0%) 812 blk/s 9,744 tx/s eta 4s peers 1',
      );
    });
  });
});
