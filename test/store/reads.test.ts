import { describe, expect, it } from 'vitest';
import { syntheticChain, SPIKE_SHAPE } from '../../core/bench/store/syntheticBlocks.ts';
import { ChainStore, openReadOnly, StoreTimeoutError } from '../../core/store/index.ts';
import { datadirFactory } from './support/tmpDatadir.ts';
import { expectSameBytes } from './support/bytes.ts';
import { connectionOf } from '../../core/store/connection.ts';

const newDir = datadirFactory();
const shape = { ...SPIKE_SHAPE, bodyBytes: 200, receiptsBytes: 100, txs: 6, logsPerTx: 2 };
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('reads', () => {
  const datadir = newDir();
  const chain = syntheticChain(11, 0, 19, undefined, shape);
  const store = ChainStore.open({ datadir, batch: 8 });
  for (const b of chain) store.putBlock(b);
  store.steady();
  const allLogs = chain.flatMap((b) => b.logs.map((l) => ({ ...l, blockNumber: b.number })));

  it('default: getLogs by address over a block range returns exactly the matching logs, in order', () => {
    const address = allLogs[3].address;
    const got = store.getLogs({ fromBlock: 5, toBlock: 14, address });
    const want = allLogs.filter((l) => l.blockNumber >= 5 && l.blockNumber <= 14 && hex(l.address) === hex(address));
    expect(want.length).toBeGreaterThan(3);
    expect(got.map((h) => [h.blockNumber, h.logIndex])).toEqual(want.map((l) => [l.blockNumber, l.logIndex]));
    expect(hex(got[0].blockHash)).toBe(hex(chain[got[0].blockNumber].hash));
  });

  it('behavior: topic filters combine position-wise (OR within a position, AND across), with or without an address', () => {
    const t0 = allLogs[0].topics[0];
    const t1a = allLogs[0].topics[1];
    const t1b = allLogs[1].topics[1];
    const got = store.getLogs({ fromBlock: 0, toBlock: 19, topics: [t0, [t1a, t1b]] });
    const want = allLogs.filter((l) => hex(l.topics[0]) === hex(t0) && [hex(t1a), hex(t1b)].includes(hex(l.topics[1])));
    expect(got.map((h) => `${h.blockNumber}:${h.logIndex}`)).toEqual(want.map((l) => `${l.blockNumber}:${l.logIndex}`));
    const two = [allLogs[0].address, allLogs[5].address];
    const byAddr = store.getLogs({ fromBlock: 0, toBlock: 19, address: two, topics: [null, t1a] });
    const wantAddr = allLogs.filter((l) => two.some((a) => hex(a) === hex(l.address)) && hex(l.topics[1]) === hex(t1a));
    expect(byAddr.map((h) => `${h.blockNumber}:${h.logIndex}`)).toEqual(wantAddr.map((l) => `${l.blockNumber}:${l.logIndex}`));
  });

  it('error: a scan past its deadline stops with a typed timeout naming rows scanned', () => {
    let err: unknown;
    try {
      store.getLogs({ fromBlock: 0, toBlock: 19 }, { budgetMs: 0 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreTimeoutError);
    expect(err).toMatchObject({ code: 'STORE_READ_TIMEOUT', meta: { what: 'getLogs', deadlineMs: 0 } });
  });

  it('behavior: a read-only handle sees committed blocks only, never the open batch', () => {
    const more = syntheticChain(11, 20, 22, chain[19].hash, shape);
    const ro = openReadOnly(datadir);
    store.putBlock(more[0]);
    expect(store.getHead()?.number).toBe(20);
    expect(ro.getHead()?.number).toBe(19);
    expect(ro.getHeaderByNumber(20)).toBeUndefined();
    store.steady();
    expect(ro.getHead()?.number).toBe(20);
    expectSameBytes(ro.getBody(more[0].hash), more[0].bodyRlp);
    expect(ro.getTxLocation(more[0].txHashes[5])?.txIndex).toBe(5);
    expect(() => connectionOf(ro).exec('DELETE FROM canonical')).toThrow(/readonly/);
    ro.close();
    store.close();
  });
});
