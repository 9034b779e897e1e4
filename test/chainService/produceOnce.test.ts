/**
 * The producer executes each transaction once (docs/decisions/0024-producer-executes-once.md): the builder's execution
 * is committed through the importer's store write, and a follower that verifies everything (seal, roots, execution)
 * reaches the same block hash, state root and stored receipts. A failure between execution and commit leaves the
 * producer's state exactly as before. The produced block's bytes, handed to the main thread's block cache, read as the
 * stored block does.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseGenesis } from '../../core/chain/genesis/index.ts';
import { decodeTransaction, signTransaction } from '../../core/chain/transaction/index.ts';
import { BlockImporter } from '../../core/exec/import/blockImporter.ts';
import { ChainService } from '../../core/chainService/chainService.ts';
import { rawBlock } from '../../core/store/read/rawBlock.ts';
import { devAccounts, devGenesisJson } from '../../core/node/dev/devChain.ts';
import { buildBlock } from '../../core/chainService/produce/buildBlock.ts';
import { EvmHostCache } from '../../core/exec/evmHost.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { ChainStore } from '../../core/store/index.ts';
import { StoreChainView } from '../../core/rpcBackend/chainView.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';

const accounts = devAccounts(4);
const genesis = parseGenesis(devGenesisJson(accounts));
const signerKey = hexToBytes(accounts[0].privateKey);
const newDatadir = datadirFactory();
const closers: (() => void)[] = [];
afterEach(() => {
  while (closers.length) closers.pop()?.();
});

/** PUSH1 0x2a PUSH1 0 SSTORE STOP: a creation that writes one storage slot (a storage root in the commit). */
const STORE_42 = hexToBytes('0x602a60005500');

function tx(from: number, nonce: bigint, to: Uint8Array | undefined, data: Uint8Array = new Uint8Array(0)) {
  const signed = signTransaction(
    {
      type: 2,
      chainId: 1337n,
      nonce,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1n,
      gasLimit: to ? 21_000n : 200_000n,
      to,
      value: to ? 7n : 0n,
      data,
    },
    hexToBytes(accounts[from].privateKey),
  );
  return { raw: signed.raw, sender: hexToBytes(accounts[from].address), hash: signed.hash };
}

function service(batch: number, withSigner: boolean): ChainService {
  const s = ChainService.open({ datadir: newDatadir(), genesis, batch, ...(withSigner ? { signerKey } : {}) });
  closers.push(() => s.close());
  return s;
}

describe('producer executes once', () => {
  it('default: a follower verifying the produced blocks reaches the same hash, state root and receipts', async () => {
    const producer = service(0, true);
    const recipient = hexToBytes(accounts[3].address);
    const blocks = [
      [tx(1, 0n, recipient), tx(2, 0n, undefined, STORE_42), tx(1, 1n, recipient)],
      [tx(2, 1n, recipient), tx(1, 2n, undefined, STORE_42)],
      [],
    ];
    const heads = [];
    for (const [i, txs] of blocks.entries()) heads.push((await producer.produce({ txs, timestamp: 10n + 2n * BigInt(i) })).head);
    expect(heads.map((h) => h.txHashes.length)).toEqual([3, 2, 0]);

    const follower = service(0, false);
    const imported = await follower.importBlocks(heads.map((h) => rawBlock(producer.store, h.hash) as Uint8Array));
    expect(imported.map((h) => bytesToHex(h.hash))).toEqual(heads.map((h) => bytesToHex(h.hash)));
    expect(bytesToHex(follower.head().header.stateRoot)).toBe(bytesToHex(producer.head().header.stateRoot));
    for (const h of heads) {
      expect(bytesToHex(follower.store.getReceipts(h.hash) as Uint8Array)).toBe(
        bytesToHex(producer.store.getReceipts(h.hash) as Uint8Array),
      );
    }
  });

  it('error: a failure after execution (here: sealing) leaves head, trie and caches as they were', async () => {
    const store = ChainStore.open({ datadir: newDatadir(), batch: 0 });
    closers.push(() => store.close());
    const importer = BlockImporter.open(store, { header: genesis.genesisHeader, alloc: genesis.alloc }, { config: genesis.config });
    const hosts = new EvmHostCache();
    const first = tx(1, 0n, hexToBytes(accounts[3].address));
    const build = () =>
      buildBlock([{ tx: decodeTransaction(first.raw), sender: first.sender }], 10n, {
        config: genesis.config,
        parent: importer.headInfo,
        state: importer.state,
        hosts,
        blockHash: (n) => store.getCanonicalHash(Number(n)),
      });
    const failed = await build();
    await expect(
      importer.commitExecuted(failed.exec, failed.senders, () => {
        throw new Error('seal failed');
      }),
    ).rejects.toThrow('seal failed');
    expect(importer.headInfo.header.number).toBe(0n);
    expect(store.getCanonicalHash(1)).toBeUndefined();

    // The same block built again commits, and a verifying import elsewhere agrees with its root.
    const built = await build();
    const committed = await importer.commitExecuted(built.exec, built.senders, (stateRoot) => ({
      ...built.block,
      header: { ...built.block.header, stateRoot },
    }));
    expect(committed.number).toBe(1n);
    const otherStore = ChainStore.open({ datadir: newDatadir(), batch: 0 });
    closers.push(() => otherStore.close());
    const other = BlockImporter.open(otherStore, { header: genesis.genesisHeader, alloc: genesis.alloc }, { config: genesis.config });
    const verified = await other.importRlp(rawBlock(store, committed.hash) as Uint8Array);
    expect(bytesToHex(verified.hash)).toBe(bytesToHex(committed.hash));
    expect(bytesToHex(other.headInfo.header.stateRoot)).toBe(bytesToHex(importer.headInfo.header.stateRoot));
  });
});

/** PUSH1 0 PUSH1 0 LOG0 STOP: a creation whose receipt holds one log. */
const LOG0 = hexToBytes('0x60006000a000');

/** Equal bytes and values (the store hands senders back as Buffers, the chain thread's port as Uint8Arrays). */
const same = (a: unknown, b: unknown) => expect(structuredClone(a)).toEqual(structuredClone(b));

/**
 * The produced block handed to the main thread's block cache (`StoreChainView.rememberProduced`, from
 * `ProduceResult.block`) answers every read exactly as the same block read back from the store does.
 */
describe('a produced block in the main thread cache', () => {
  it('default: block, receipts, transactions and raw forms equal those read back from the store', async () => {
    const producer = service(0, true);
    const recipient = hexToBytes(accounts[3].address);
    const txs = [tx(1, 0n, recipient), tx(2, 0n, undefined, LOG0), tx(1, 1n, recipient)];
    const produced = await producer.produce({ txs, timestamp: 10n });
    const empty = await producer.produce({ txs: [], timestamp: 12n });
    const head = () => {
      const h = producer.head();
      return { header: h.header, hash: h.hash };
    };
    const remembered = new StoreChainView(producer.store, genesis.config, head);
    const fresh = new StoreChainView(producer.store, genesis.config, head);
    for (const r of [produced, empty]) {
      // Structured clone, as the result crosses the chain thread's port.
      const { head: update, block } = structuredClone(r);
      // With the TD the chain thread answered: the block object's totalDifficulty must equal the store-derived one.
      remembered.rememberProduced(update.hash, update.headerRlp, block, { number: update.number, td: update.td });
      same(remembered.getBlockByHash(update.hash), fresh.getBlockByHash(update.hash));
      same(remembered.getReceipts(update.hash), fresh.getReceipts(update.hash));
      same(remembered.getRawReceipts(update.hash), fresh.getRawReceipts(update.hash));
      same(remembered.getRawBlock(update.hash), fresh.getRawBlock(update.hash));
    }
    expect(remembered.getReceipts(produced.head.hash)?.[1].logs).toHaveLength(1);
    for (const t of txs) {
      same(remembered.getTransaction(t.hash), fresh.getTransaction(t.hash));
      same(remembered.getReceipt(t.hash), fresh.getReceipt(t.hash));
    }
  });

  it('edge: senders that do not match the block are replaced by the stored row', async () => {
    const producer = service(0, true);
    const r = await producer.produce({ txs: [tx(1, 0n, hexToBytes(accounts[3].address))], timestamp: 10n });
    const view = new StoreChainView(producer.store, genesis.config, () => ({ header: producer.head().header, hash: producer.head().hash }));
    view.rememberProduced(r.head.hash, r.head.headerRlp, { ...r.block, senders: [] });
    expect(view.getBlockByHash(r.head.hash)?.transactions).toHaveLength(1);
    const fresh = new StoreChainView(producer.store, genesis.config, () => ({
      header: producer.head().header,
      hash: producer.head().hash,
    }));
    same(view.getTransaction(r.head.txHashes[0]), fresh.getTransaction(r.head.txHashes[0]));
  });
});

/**
 * The next seal's Clique signer checks start from the block just produced (its snapshot made from the parent header
 * in hand): a run of produced blocks reads no header back from the store for them.
 */
describe('the signer snapshot of a produced block', () => {
  it('default: the blocks after the first read no header from the store', async () => {
    const producer = service(0, true);
    const recipient = hexToBytes(accounts[3].address);
    await producer.produce({ txs: [tx(1, 0n, recipient)], timestamp: 10n });
    const reads = vi.spyOn(producer.store, 'getHeaderByHash');
    for (let i = 1n; i <= 3n; i++) await producer.produce({ txs: [tx(1, i, recipient)], timestamp: 10n + 2n * i });
    expect(reads).not.toHaveBeenCalled();
    expect(producer.head().header.number).toBe(4n);
  });
});
