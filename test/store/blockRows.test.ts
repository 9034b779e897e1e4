import { describe, expect, it } from 'vitest';
import { syntheticChain, SPIKE_SHAPE } from '../../core/bench/store/syntheticBlocks.ts';
import { ChainStore } from '../../core/store/index.ts';
import { datadirFactory } from './support/tmpDatadir.ts';
import { connectionOf } from '../../core/store/connection.ts';

const newDir = datadirFactory();
// 150 transactions and 300 logs: two full 64-row statements plus a remainder for each table.
const WIDE = { ...SPIKE_SHAPE, bodyBytes: 200, receiptsBytes: 100, txs: 150, logsPerTx: 2 };

describe('block rows (tx_lookup, logs) written 64 per statement', () => {
  it('behavior: every lookup and log row of a wide block reads back; a repeated hash keeps its last index', () => {
    const store = ChainStore.open({ datadir: newDir() });
    const chain = syntheticChain(11, 0, 1, undefined, WIDE);
    const hashes = [...chain[1].txHashes];
    hashes[140] = hashes[5]; // OR REPLACE: the later row wins, as with one INSERT per row
    const wide = { ...chain[1], txHashes: hashes };
    store.putBlock(chain[0]);
    store.putBlock(wide);
    hashes.forEach((h, i) => {
      if (i !== 5) expect(store.getTxLocation(h)).toEqual({ blockNumber: 1, blockHash: Buffer.from(wide.hash), txIndex: i });
    });
    expect(connectionOf(store).prepare('SELECT count(*) FROM tx_lookup WHERE number = 1').pluck().get()).toBe(149);
    const logs = store.getLogs({ fromBlock: 1, toBlock: 1 });
    expect(logs.map((l) => [l.logIndex, l.txIndex])).toEqual(wide.logs.map((l) => [l.logIndex, l.txIndex]));
    store.close();
  });

  it('error: a conflict inside a full chunk rolls the block back and leaves no buffered rows for the next block', () => {
    const store = ChainStore.open({ datadir: newDir(), batch: 8 });
    const chain = syntheticChain(12, 0, 2, undefined, WIDE);
    store.putBlock(chain[0]);
    const logs = [...chain[1].logs];
    logs[30] = logs[10]; // same (number, log_index) inside the first 64-row statement
    expect(() => store.putBlock({ ...chain[1], logs })).toThrow(expect.objectContaining({ code: 'STORE_BAD_BLOCK' }));
    expect(store.getTxLocation(chain[1].txHashes[0])).toBeUndefined();
    expect(connectionOf(store).prepare('SELECT count(*) FROM logs WHERE number = 1').pluck().get()).toBe(0);
    store.putBlock(chain[1]);
    store.putBlock(chain[2]);
    store.steady();
    for (const b of chain.slice(1)) {
      expect(connectionOf(store).prepare('SELECT count(*) FROM tx_lookup WHERE number = ?').pluck().get(b.number)).toBe(150);
      expect(store.getLogs({ fromBlock: b.number, toBlock: b.number })).toHaveLength(300);
    }
    store.close();
  });
});
