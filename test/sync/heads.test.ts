/**
 * Head following: with polling effectively off, a new block reaches the follower through the SSE announcement
 * stream alone; when the stream is refused, the follower falls back to polling `/status` and still follows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headerHash } from '../../core/chain/header/index.ts';
import { createCapturingLogger } from '../../core/log/capturingLogger.ts';
import { ChainService } from '../../core/node/chain/chainService.ts';
import { bytesToHex } from '../../core/primitives/hex.ts';
import { Follower } from '../../core/sync/follower.ts';
import { HttpSyncSource } from '../../core/sync/source/httpSyncSource.ts';
import { chainServiceTarget } from '../../core/sync/target.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';
import { genesis, openProducer, serveSource, until, type Producer, type Served } from './support/chain.ts';

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
