/**
 * Follower import with the chain thread's recovery pool: the next block's senders are recovered by a real worker
 * thread while the current block executes; the result is the same chain and the same stored senders as in-thread
 * recovery, and a bad block late in a range still leaves the blocks before it imported.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseGenesis } from '../../core/chain/genesis/index.ts';
import { signTransaction } from '../../core/chain/transaction/index.ts';
import { ChainService } from '../../core/chainService/chainService.ts';
import { rawBlock } from '../../core/store/read/rawBlock.ts';
import { devAccounts, devGenesisJson } from '../../core/node/dev/devChain.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { createMetrics } from '../../core/metrics/index.ts';
import { RecoveryPool } from '../../core/runtime/recovery/index.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';

const accounts = devAccounts(4);
const genesis = parseGenesis(devGenesisJson(accounts));
const newDatadir = datadirFactory();
const open: ChainService[] = [];
let pool: RecoveryPool;
// The pool's own metrics, in a real registry: they show the batches went through the worker, not the importer.
const metrics = createMetrics({ processMetrics: false });
const poolBatches = async (): Promise<number> => {
  const text = await metrics.register.metrics();
  return Number(/^xone_recovery_seconds_count (\d+)$/m.exec(text)?.[1] ?? 0);
};
let blocks: Uint8Array[];
let producerSenders: string[];

function transfer(from: number, nonce: bigint): { raw: Uint8Array; sender: Uint8Array } {
  const tx = signTransaction(
    {
      type: 2,
      chainId: 1337n,
      nonce,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1n,
      gasLimit: 21_000n,
      to: hexToBytes(accounts[3].address),
      value: 1n,
      data: new Uint8Array(0),
    },
    hexToBytes(accounts[from].privateKey),
  );
  return { raw: tx.raw, sender: hexToBytes(accounts[from].address) };
}

const storedSenders = (s: ChainService, hash: Uint8Array): string => (s.store.getSenders(hash) ?? []).map(bytesToHex).join('');

beforeAll(async () => {
  // A pool of one worker that takes every batch (no in-thread shortcut for small blocks), warmed up like the node's.
  pool = new RecoveryPool(
    { workers: 1, inlineBelow: 1 },
    { metrics: { recoveryQueueLength: metrics.recoveryQueueLength, recoverySeconds: metrics.recoverySeconds } },
  );
  await pool.init();
  const producer = ChainService.open({ datadir: newDatadir(), genesis, batch: 0, signerKey: hexToBytes(accounts[0].privateKey) });
  try {
    blocks = [];
    producerSenders = [];
    for (let b = 0; b < 3; b++) {
      const { head } = await producer.produce({ txs: [transfer(1, BigInt(b)), transfer(2, BigInt(b))], timestamp: BigInt(10 + 2 * b) });
      blocks.push(rawBlock(producer.store, head.hash) as Uint8Array);
      producerSenders.push(storedSenders(producer, head.hash));
    }
  } finally {
    producer.close();
  }
}, 60_000);
afterAll(async () => {
  await pool?.close();
});
afterEach(() => {
  while (open.length) open.pop()?.close();
});

function follower(): ChainService {
  const s = ChainService.open({ datadir: newDatadir(), genesis, batch: 128 });
  s.senderRecovery = pool;
  open.push(s);
  return s;
}

describe('follower import with the recovery pool', () => {
  it('default: imports the range with senders recovered ahead by the pool, storing the same senders as the producer', async () => {
    const s = follower();
    const batchesBefore = await poolBatches();
    const updates = await s.importBlocks(blocks);
    s.steady();
    expect(updates.map((u) => u.number)).toEqual([1n, 2n, 3n]);
    expect(updates.map((u) => storedSenders(s, u.hash))).toEqual(producerSenders);
    expect(pool.liveWorkers()).toBe(1);
    expect((await poolBatches()) - batchesBefore).toBe(3); // one recovery batch per block, all in the pool
  });

  it('error: an undecodable block after two good ones throws when its turn comes; the two before it are imported', async () => {
    const s = follower();
    await expect(s.importBlocks([blocks[0], blocks[1], new Uint8Array([0xc1, 0xff])])).rejects.toThrow();
    s.steady();
    expect(s.head().number).toBe(2n);
  });
});
