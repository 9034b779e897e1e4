/**
 * Producer + two followers over real HTTP on 127.0.0.1 with real datadirs: catch-up in group-committed batches,
 * head following from the SSE announcements, the same head hash and state root; tx forwarding to the producer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainService } from '../../core/node/chain/chainService.ts';
import { createCapturingLogger } from '../../core/log/capturingLogger.ts';
import { bytesToHex } from '../../core/primitives/hex.ts';
import { Follower } from '../../core/sync/follower.ts';
import type { SyncProgress } from '../../core/sync/progress.ts';
import { HttpSyncSource } from '../../core/sync/source/httpSyncSource.ts';
import { chainServiceTarget } from '../../core/sync/target.ts';
import { headerHash } from '../../core/chain/header/index.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';
import { genesis, openProducer, serveSource, transfer, until, type Producer, type Served } from './support/chain.ts';

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
