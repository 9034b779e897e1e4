/**
 * The RPC's ChainView over the store: reads go through a read-only connection (its own WAL snapshot, never queued
 * behind the writer), the head comes from memory, and decoded recent blocks are kept in a small LRU so a burst of
 * calls about the same block decodes it once.
 */
import { decodeBlock, type Block } from '../chain/block/index.ts';
import type { ChainConfig } from '../chain/forks.ts';
import { ethereumHeaderCodec, headerHash, type Header } from '../chain/header/index.ts';
import { decodeReceiptsFromStorage, encodeReceipt, type Receipt } from '../chain/receipt/index.ts';
import { effectiveGasPrice, recoverSender } from '../chain/transaction/index.ts';
import { bytesToHex, equalBytes } from '../primitives/hex.ts';
import { decodeRlp } from '../primitives/rlp.ts';
import type { FeeHistoryBlock, ChainView, LogQuery, LogReadOptions } from '../rpc/interface.ts';
import type { RawJson } from '../rpc/json.ts';
import type { BlockData, HeaderData, LogData, ReceiptData, TransactionData, TxLocation } from '../rpc/encode/types.ts';
import { expectedBaseFee } from '../exec/header/baseFee.ts';
import { blobParams, forkAt } from '../chain/forks.ts';
import { forkConfigs, type ForkConfigs, type GenesisRef } from '../chain/forkConfigs.ts';
import { blobBaseFee, expectedExcessBlobGas, GAS_PER_BLOB } from '../exec/header/blobGas.ts';
import { Deadline, type ChainReader } from '../store/index.ts';
import { blockRlp, rawBlock } from '../store/read/rawBlock.ts';
import { blockData, headerData, receiptsData, transactionData } from './convert.ts';
import { TotalDifficulty } from './totalDifficulty.ts';
import { CliqueTags } from './cliqueTags.ts';

interface DecodedBlock {
  readonly block: Block;
  hash: Uint8Array;
  readonly senders: Uint8Array[];
  readonly size: number;
  receipts?: Receipt[];
  /** The stored receipts bytes, when they came with the block (`rememberProduced`): decoded on first use. */
  receiptsRlp?: Uint8Array;
}

/**
 * A produced block kept as the bytes the chain thread stored, decoded on first use: the adopt that answers an
 * automine send then decodes nothing (the decode was ~4 % of the main thread per send, issue #15); the encoding cache
 * right after the answer is its first use.
 */
class ProducedBlock implements DecodedBlock {
  receipts?: Receipt[];
  receiptsRlp?: Uint8Array;
  private decodedBlock: Block | undefined;
  private raw: Uint8Array | undefined;
  private sendersList: Uint8Array[] | undefined;

  constructor(
    readonly hash: Uint8Array,
    private readonly headerRlp: Uint8Array,
    private readonly bodyRlp: Uint8Array,
    private readonly storedSenders: readonly Uint8Array[],
    private readonly sendersOf: (block: Block, stored: readonly Uint8Array[]) => Uint8Array[],
    receiptsRlp: Uint8Array,
  ) {
    this.receiptsRlp = receiptsRlp;
  }

  get block(): Block {
    return (this.decodedBlock ??= decodeBlock(this.rawBlock()));
  }

  get size(): number {
    return this.rawBlock().length;
  }

  get senders(): Uint8Array[] {
    return (this.sendersList ??= this.sendersOf(this.block, this.storedSenders));
  }

  private rawBlock(): Uint8Array {
    return (this.raw ??= blockRlp(this.headerRlp, this.bodyRlp));
  }
}

export interface ChainHead {
  header: Header;
  hash: Uint8Array;
}

const CACHE_BLOCKS = 64;
const GWEI = 1_000_000_000n;

export class StoreChainView implements ChainView {
  private readonly blocks = new Map<string, DecodedBlock>();
  private readonly totalDifficulty: TotalDifficulty;
  private readonly tags: CliqueTags;
  private genesis: GenesisRef | undefined;

  /** Set when eth_getLogs reads elsewhere (the node's execution pool): reads and encodes there, off this thread. */
  readonly getLogsJson?: (query: LogQuery, opts: LogReadOptions) => Promise<RawJson>;

  constructor(
    private readonly reader: ChainReader,
    private readonly config: ChainConfig,
    private readonly currentHead: () => ChainHead,
    private readonly syncState: () => false | { startingBlock: bigint; currentBlock: bigint; highestBlock: bigint } = () => false,
    offload: { getLogsJson?: (query: LogQuery, opts: LogReadOptions) => Promise<RawJson> } = {},
  ) {
    if (offload.getLogsJson) this.getLogsJson = offload.getLogsJson;
    this.totalDifficulty = new TotalDifficulty(reader);
    this.tags = new CliqueTags(config, (n) => this.getHeaderByNumber(n)?.extraData ?? null);
  }

  chainId(): bigint {
    return this.config.chainId;
  }

  head(): HeaderData {
    const h = this.currentHead();
    return headerData(h.header, h.hash);
  }

  /** head − 1 with several Clique signers, the head with one (docs/decisions/0011-rpc-block-tags-poa.md). */
  safeNumber(): bigint {
    return this.tags.safe(this.currentHead().header.number);
  }

  /** head − (floor(N/2) + 1) with N Clique signers, the head with one (docs/decisions/0011-rpc-block-tags-poa.md). */
  finalizedNumber(): bigint {
    return this.tags.finalized(this.currentHead().header.number);
  }

  getHeaderByNumber(number: bigint): HeaderData | null {
    if (number > Number.MAX_SAFE_INTEGER) return null;
    const row = this.reader.getHeaderByNumber(Number(number));
    return row ? headerData(decodeHeader(row.headerRlp), row.hash) : null;
  }

  getHeaderByHash(hash: Uint8Array): HeaderData | null {
    const row = this.reader.getHeaderByHash(hash);
    return row ? headerData(decodeHeader(row.headerRlp), row.hash) : null;
  }

  getBlockByHash(hash: Uint8Array): BlockData | null {
    const d = this.decoded(hash);
    if (!d) return null;
    const data = blockData(
      d.block,
      d.hash,
      d.senders,
      d.size,
      d.block.ommers.map((o) => headerHash(o)),
    );
    const td = this.totalDifficulty.of(hash);
    // geth 1.13 (the version the execution-apis suites were recorded with) reports TD on every block, merged or not.
    if (td !== undefined) data.totalDifficulty = td;
    return data;
  }

  getReceipts(blockHash: Uint8Array): ReceiptData[] | null {
    const d = this.decoded(blockHash);
    if (!d) return null;
    return receiptsData(d.block, d.hash, d.senders, this.receiptsOf(d), this.blobGasPrice(d.block.header));
  }

  getTransaction(hash: Uint8Array): { tx: TransactionData; location: TxLocation } | null {
    const loc = this.reader.getTxLocation(hash);
    const d = loc && this.decoded(loc.blockHash);
    if (!loc || !d) return null;
    const tx = d.block.transactions[loc.txIndex];
    return {
      tx: transactionData(tx, d.senders[loc.txIndex], d.block.header),
      location: {
        blockHash: loc.blockHash,
        blockNumber: BigInt(loc.blockNumber),
        blockTimestamp: d.block.header.timestamp,
        index: loc.txIndex,
      },
    };
  }

  getReceipt(txHash: Uint8Array): ReceiptData | null {
    const loc = this.reader.getTxLocation(txHash);
    if (!loc) return null;
    return this.getReceipts(loc.blockHash)?.[loc.txIndex] ?? null;
  }

  getRawBlock(hash: Uint8Array): Uint8Array | null {
    return rawBlock(this.reader, hash) ?? null;
  }

  getRawHeader(hash: Uint8Array): Uint8Array | null {
    return this.reader.getHeaderByHash(hash)?.headerRlp ?? null;
  }

  getRawReceipts(hash: Uint8Array): Uint8Array[] | null {
    const d = this.decoded(hash);
    return d ? this.receiptsOf(d).map(encodeReceipt) : null;
  }

  getRawTransaction(hash: Uint8Array): Uint8Array | null {
    const loc = this.reader.getTxLocation(hash);
    const d = loc && this.decoded(loc.blockHash);
    return loc && d ? d.block.transactions[loc.txIndex].raw : null;
  }

  /**
   * The store's log index finds the positions (checking the call's deadline and signal between rows, and stopping past
   * `limit`); each hit's data comes from its block's receipts, decoded once per block, with the same checks between
   * blocks. Both stops are typed store errors the RPC maps (-32002, -32005).
   */
  getLogs(query: LogQuery, opts: LogReadOptions): LogData[] {
    const limits = { deadline: opts.deadline, signal: opts.signal };
    const hits = this.reader.getLogs(
      {
        fromBlock: Number(query.fromBlock),
        toBlock: Number(query.toBlock),
        ...(query.addresses.length ? { address: query.addresses } : {}),
        topics: query.topics,
        limit: opts.limit,
      },
      limits,
    );
    const deadline = new Deadline(Number.POSITIVE_INFINITY, undefined, limits);
    const out: LogData[] = [];
    let block: Uint8Array | undefined;
    for (const hit of hits) {
      if (block === undefined || !equalBytes(block, hit.blockHash)) {
        deadline.check('getLogs receipts', out.length);
        block = hit.blockHash;
      }
      if (query.blockHash && !equalBytes(hit.blockHash, query.blockHash)) continue;
      const receipts = this.getReceipts(hit.blockHash);
      const log = receipts?.[hit.txIndex]?.logs.find((l) => l.logIndex === hit.logIndex);
      if (log) out.push(log);
    }
    return out;
  }

  feeHistoryBlock(number: bigint): FeeHistoryBlock | null {
    const row = number <= Number.MAX_SAFE_INTEGER ? this.reader.getHeaderByNumber(Number(number)) : undefined;
    const d = row && this.decoded(row.hash);
    if (!d) return null;
    const h = d.block.header;
    const baseFee = h.baseFeePerGas ?? 0n;
    const receipts = this.receiptsOf(d);
    let previous = 0n;
    const fork = forkAt(this.config, Number(h.number), Number(h.timestamp));
    const params = blobParams(this.config, fork);
    return {
      ...(params === undefined
        ? {}
        : {
            blob: {
              baseFee: blobBaseFee(h.excessBlobGas ?? 0n, params),
              // The next block's fee under this block's fork (a fork boundary is one block off, as geth's oracle).
              nextBaseFee: blobBaseFee(expectedExcessBlobGas(h, this.config, fork), params),
              gasUsed: h.blobGasUsed ?? 0n,
              maxGas: BigInt(params.max) * GAS_PER_BLOB,
              excess: h.excessBlobGas ?? 0n,
            },
          }),
      number: h.number,
      baseFeePerGas: baseFee,
      nextBaseFeePerGas: h.baseFeePerGas !== undefined ? expectedBaseFee(h, fork) : 0n,
      gasUsed: h.gasUsed,
      gasLimit: h.gasLimit,
      txs: d.block.transactions.map((tx, i) => {
        const gasUsed = receipts[i].cumulativeGasUsed - previous;
        previous = receipts[i].cumulativeGasUsed;
        return { tip: effectiveGasPrice(tx, h.baseFeePerGas) - baseFee, gasUsed };
      }),
    };
  }

  /** The blob base fee of `header` (undefined before Cancun). */
  private blobGasPrice(header: Header): bigint | undefined {
    const params = blobParams(this.config, forkAt(this.config, Number(header.number), Number(header.timestamp)));
    return params === undefined ? undefined : blobBaseFee(header.excessBlobGas ?? 0n, params);
  }

  /** Blob base fee at the head, as geth's eth_blobBaseFee answers (undefined before Cancun). */
  headBlobBaseFee(): bigint | undefined {
    return this.blobGasPrice(this.currentHead().header);
  }

  /** EIP-7910 eth_config at the head's time (the genesis hash is read once: it never changes). */
  forkConfigs(): ForkConfigs {
    if (this.genesis === undefined) {
      const row = this.reader.getHeaderByNumber(0);
      if (!row) throw new Error('genesis header missing from the store');
      this.genesis = { hash: row.hash, timestamp: Number(decodeHeader(row.headerRlp).timestamp) };
    }
    return forkConfigs(this.config, this.genesis, Number(this.currentHead().header.timestamp));
  }

  /** The fork in force at the head, by our fork table's name. */
  headFork(): string {
    const h = this.currentHead().header;
    return forkAt(this.config, Number(h.number), Number(h.timestamp));
  }

  /** geth's oracle in short: the 60th percentile of the tips paid in the last 20 blocks, 1 gwei when there are none. */
  suggestTip(): bigint {
    const head = this.currentHead().header.number;
    const tips: bigint[] = [];
    for (let n = head; n >= 0n && n > head - 20n; n--) {
      const fh = this.feeHistoryBlock(n);
      if (fh) for (const t of fh.txs) tips.push(t.tip);
    }
    if (tips.length === 0) return GWEI;
    tips.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return tips[Math.floor((tips.length - 1) * 0.6)];
  }

  syncing(): false | { startingBlock: bigint; currentBlock: bigint; highestBlock: bigint } {
    return this.syncState();
  }

  /** A block with its senders (from the stored senders row; recovered when there is none), through the LRU. */
  blockWithSenders(hash: Uint8Array): { block: Block; hash: Uint8Array; senders: Uint8Array[] } | undefined {
    return this.decoded(hash);
  }

  private decoded(hash: Uint8Array): DecodedBlock | undefined {
    const key = bytesToHex(hash);
    const hit = this.blocks.get(key);
    if (hit) {
      this.blocks.delete(key);
      this.blocks.set(key, hit);
      return hit;
    }
    const raw = rawBlock(this.reader, hash);
    if (!raw) return undefined;
    const block = decodeBlock(raw);
    return this.cache(key, { block, hash, senders: this.sendersOf(block, hash, undefined), size: raw.length });
  }

  /** `given` when it is the block's senders list, else the stored row, else recovered (a store that kept none). */
  private sendersOf(block: Block, hash: Uint8Array, given: readonly Uint8Array[] | undefined): Uint8Array[] {
    const n = block.transactions.length;
    if (given?.length === n) return [...given];
    const row = this.reader.getSenders(hash);
    return row?.length === n ? row : block.transactions.map((tx) => recoverSender(tx));
  }

  /**
   * A block this node just produced, from the bytes the chain thread stored for it (header, body and receipts records,
   * the senders row): cached as a read of them would be, so serving and publishing the new head (its receipts for the
   * encodings, filters and log lines) read none of it back, and it is decoded on first use. A block's records never
   * change under its hash. With `known` (its number and total difficulty, as the chain thread computed it), its block
   * object's TD is not derived from the store. Senders that do not match the block are replaced by the stored row.
   */
  rememberProduced(
    hash: Uint8Array,
    headerRlp: Uint8Array,
    stored: { bodyRlp: Uint8Array; receiptsRlp: Uint8Array; senders: readonly Uint8Array[] },
    known?: { number: bigint; td: bigint },
  ): void {
    if (known !== undefined) this.totalDifficulty.known(hash, Number(known.number), known.td);
    const sendersOf = (block: Block, list: readonly Uint8Array[]) => this.sendersOf(block, hash, list);
    this.cache(bytesToHex(hash), new ProducedBlock(hash, headerRlp, stored.bodyRlp, stored.senders, sendersOf, stored.receiptsRlp));
  }

  private cache(key: string, d: DecodedBlock): DecodedBlock {
    this.blocks.set(key, d);
    if (this.blocks.size > CACHE_BLOCKS) this.blocks.delete(this.blocks.keys().next().value as string);
    return d;
  }

  private receiptsOf(d: DecodedBlock): Receipt[] {
    if (!d.receipts) {
      d.receipts = decodeReceiptsFromStorage(d.receiptsRlp ?? this.reader.getReceipts(d.hash) ?? new Uint8Array([0xc0]));
      d.receiptsRlp = undefined;
    }
    return d.receipts;
  }
}

function decodeHeader(rlp: Uint8Array): Header {
  return ethereumHeaderCodec.decode(decodeRlp(rlp), rlp);
}
