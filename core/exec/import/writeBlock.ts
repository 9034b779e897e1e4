/**
 * One accepted block's store write: header, body, receipts, log index, senders, total difficulty and the block's
 * state (rows, change set, trie nodes) in one `putBlock` savepoint. Shared by the verifying import
 * (`BlockImporter.importBlock`) and the producer's commit of a block it already executed
 * (`BlockImporter.commitExecuted`), so both follow the same savepoint, durability and publication rules. A side-chain
 * block (executed on its own branch) is written by `writeSideBlock`: the same record, no state.
 */
import { encodeBlockBody, type Block } from '../../chain/block/index.ts';
import { ethereumHeaderCodec } from '../../chain/header/index.ts';
import { encodeReceiptsForStorage, type Receipt } from '../../chain/receipt/index.ts';
import type { StateChanges } from '../../state/interface.ts';
import { pruneHistory } from '../../state/store/history.ts';
import type { StoreState } from '../../state/store/storeState.ts';
import type { RootUpdate } from '../../state/stateRoot.ts';
import type { BlockRecord, ChainStore, LogIndexEntry } from '../../store/index.ts';

/** What one block's write needs. */
export interface BlockWrite {
  block: Block;
  hash: Uint8Array;
  receipts: readonly Receipt[];
  changes: StateChanges;
  roots: RootUpdate;
  senders: readonly Uint8Array[];
  /** Total difficulty of the chain ending at this block. */
  td: bigint;
}

/** The block record of `w` as the store keeps it (header, body, receipts, log index entries, senders, TD). */
function blockRecord(w: Pick<BlockWrite, 'block' | 'hash' | 'receipts' | 'senders' | 'td'>): BlockRecord {
  const header = w.block.header;
  const logs: LogIndexEntry[] = [];
  w.receipts.forEach((r, txIndex) =>
    r.logs.forEach((l) => logs.push({ address: l.address, topics: l.topics, txIndex, logIndex: logs.length })),
  );
  return {
    number: Number(header.number),
    hash: w.hash,
    parentHash: header.parentHash,
    headerRlp: ethereumHeaderCodec.encode(header),
    bodyRlp: encodeBlockBody(w.block),
    receiptsRlp: encodeReceiptsForStorage(w.receipts),
    txHashes: w.block.transactions.map((t) => t.hash),
    logs,
    senders: w.senders,
    td: w.td,
  };
}

/**
 * Writes an executed side-chain block through `store.putSideBlock`: its records, block row and senders, no state
 * (its state lives in the side-chain executor until a reorg imports it again).
 */
export function writeSideBlock(store: ChainStore, w: Pick<BlockWrite, 'block' | 'hash' | 'receipts' | 'senders' | 'td'>): void {
  store.putSideBlock(blockRecord(w));
}

/**
 * Writes `w` through `store.putBlock` (durable on its own when the store's batch is 0). Returns the record written (the
 * producer hands its body and receipts bytes to the main thread, which would otherwise read them back).
 */
export function writeBlock(store: ChainStore, state: StoreState, historyBlocks: number | undefined, w: BlockWrite): BlockRecord {
  const number = Number(w.block.header.number);
  const record = blockRecord(w);
  store.putBlock(record, (tx) => {
    state.commitBlock(number, w.roots.root, w.changes, w.roots.storageRoots, w.roots.encoded);
    if (historyBlocks !== undefined && number - historyBlocks > 0) pruneHistory(tx, number - historyBlocks);
  });
  return record;
}
