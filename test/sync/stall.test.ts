/**
 * A follower that stops importing while a peer serves a heavier chain says so and says why (`Sync stalled`, with the
 * step it waits on), then `Sync resumed` once its head moves: the partition test's start-up flake was a signer stuck
 * at block 2-3 whose log gave no reason. Real producer, real HTTP, a real chain service behind the follower; the
 * fault is injected into the target (its import hangs until released).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGenesis } from '../../core/chain/genesis/index.ts';
import { headerHash } from '../../core/chain/header/index.ts';
import { ChainService } from '../../core/chainService/chainService.ts';
import { createCapturingLogger } from '../../core/log/capturingLogger.ts';
import { devAccounts, devGenesisJson } from '../../core/node/dev/devChain.ts';
import { Follower } from '../../core/sync/follower.ts';
import { HttpSyncSource } from '../../core/sync/source/httpSyncSource.ts';
import { chainServiceTarget, type SyncTarget } from '../../core/sync/target.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';
import { genesis, openProducer, serveSource, type Producer, type Served } from './support/chain.ts';

const newDatadir = datadirFactory();
let producer: Producer;
let served: Served;
let service: ChainService;
/** A producer on another genesis (its peer is dropped at the first answer). */
let other: Producer;
let otherServed: Served;

beforeAll(async () => {
  producer = openProducer(newDatadir());
  await producer.produce(5);
  served = await serveSource(producer.source);
  service = ChainService.open({ datadir: newDatadir(), genesis, batch: 16 });
  other = openProducer(newDatadir(), parseGenesis(devGenesisJson(devAccounts(4))));
  await other.produce(2);
  otherServed = await serveSource(other.source);
});
afterAll(async () => {
  await served?.close();
  await otherServed?.close();
  service?.close();
  producer?.service.close();
  other?.service.close();
});

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a follower that stops importing', () => {
  it('behavior: logs Sync stalled naming what it waits on while a peer is heavier, then Sync resumed when its head moves', async () => {
    let release: (() => void) | undefined;
    const hung = new Promise<void>((resolve) => (release = resolve));
    const real = chainServiceTarget(service);
    const target: SyncTarget = {
      ...real,
      importBlocks: async (rlps) => {
        await hung;
        return real.importBlocks(rlps);
      },
    };
    const logger = createCapturingLogger();
    const source = new HttpSyncSource({ url: served.url, genesisHash: headerHash(genesis.genesisHeader), chainId: genesis.config.chainId });
    const follower = new Follower({ batch: 16, pollMs: 100, stallMs: 300 }, { target, sources: [source], logger });
    follower.start();
    try {
      // Repeated every stallMs while it lasts; a loaded host may see one while the blocks are still on their way.
      const atImport = (r: (typeof logger.records)[number]): boolean =>
        r.msg === 'Sync stalled' && String(r.ctx.waitingOn).startsWith('the chain thread');
      await until('Sync stalled at the import', () => logger.records.some(atImport));
      const stalled = logger.records.find(atImport);
      expect(stalled?.level).toBe('warn');
      expect(stalled?.ctx).toMatchObject({
        head: '0',
        bestPeer: served.url,
        bestPeerHead: '5',
        waitingOn: expect.stringMatching(/^the chain thread importing 5 blocks from 1$/),
        peers: [{ peer: served.url, head: '5', stream: true, strikes: 0 }],
      });
      expect(Number(stalled?.ctx.stalledMs)).toBeGreaterThanOrEqual(300);
      release?.();
      await until('Sync resumed', () => logger.records.some((r) => r.msg === 'Sync resumed'));
      expect(service.head().number).toBe(5n);
      // Level with the peer: no further stall line.
      const lines = logger.records.filter((r) => r.msg === 'Sync stalled').length;
      await new Promise((r) => setTimeout(r, 700));
      expect(logger.records.filter((r) => r.msg === 'Sync stalled')).toHaveLength(lines);
    } finally {
      release?.();
      await follower.stop();
    }
  });

  it('behavior: a follower whose every peer is dropped says so every stallMs, not once', async () => {
    const logger = createCapturingLogger();
    const source = new HttpSyncSource({
      url: otherServed.url,
      genesisHash: headerHash(genesis.genesisHeader),
      chainId: genesis.config.chainId,
    });
    const follower = new Follower(
      { batch: 16, pollMs: 100, stallMs: 300 },
      { target: chainServiceTarget(service), sources: [source], logger },
    );
    follower.start();
    try {
      const stalls = (): typeof logger.records => logger.records.filter((r) => r.msg === 'Sync stalled');
      await until('two Sync stalled lines', () => stalls().length >= 2);
      expect(logger.records.find((r) => r.msg === 'Dropped peer')?.ctx.code).toBe('SYNC_PEER_WRONG_CHAIN');
      expect(stalls()[0].ctx).toMatchObject({ waitingOn: 'every peer is dropped', peers: [{ peer: otherServed.url }] });
      expect(Number((stalls()[0].ctx.peers as { droppedForMs: number }[])[0].droppedForMs)).toBeGreaterThan(0);
    } finally {
      await follower.stop();
    }
  });
});
