/**
 * The block import pipeline with a durable store: decode → header rules against the parent → body roots → static
 * transaction validity → sender recovery → execution → gasUsed/bloom/receipts root → state root → one `putBlock`
 * whose SAVEPOINT also holds the state rows, change set and trie nodes. Any failure before the commit leaves the
 * store and the in-memory trie exactly as they were (the trie is reopened at the parent root).
 *
 * Seals are not checked here (trusted import: `xone import`, BlockchainTests with NoProof); the consensus engine
 * wraps this pipeline for followers.
 */
import { decodeBlock, decodeBlockBody, encodeBlockBody, verifyBodyRoots, type Block } from '../../chain/block/index.ts';
import { forkAt, type ChainConfig, type Fork } from '../../chain/forks.ts';
import { ethereumHeaderCodec, headerDifficulty, headerHash, type Header } from '../../chain/header/index.ts';
import { encodeReceiptsForStorage } from '../../chain/receipt/index.ts';
import { recoverSender, validateTransactionStatic, type Transaction } from '../../chain/transaction/index.ts';
import type { GenesisAlloc } from '../../chain/genesis/index.ts';
import { XoneError } from '../../errors.ts';
import { bytesToHex, equalBytes } from '../../primitives/hex.ts';
import { decodeRlp } from '../../primitives/rlp.ts';
import type { AllocAccount } from '../../state/alloc.ts';
import { applyAlloc } from '../../state/alloc.ts';
import { unwindStateAndTrie } from '../../state/store/trieAt.ts';
import { StoreState } from '../../state/store/storeState.ts';
import { StateRootComputer } from '../../state/stateRoot.ts';
import type { BlockRecord, ChainStore } from '../../store/index.ts';
import { BlockInvalidError, mismatch } from '../errors.ts';
import { EvmHostCache } from '../evmHost.ts';
import { executeBlock, type BlockExecution, type ExecuteBlockContext } from '../block/executeBlock.ts';
import { validateHeader, type ParentInfo } from '../header/validateHeader.ts';
import { validateOmmers, type Ancestor } from '../header/validateOmmers.ts';
import { writeBlock } from './writeBlock.ts';
import { processCpuMs, type CpuClock } from '../cpuClock.ts';

/** Per-block timings in milliseconds (the bench's split and the slow-block log). */
export interface ImportTimings {
  recoverMs: number;
  executeMs: number;
  rootMs: number;
  commitMs: number;
  /** The same four phases in CPU milliseconds of this process (`process.cpuUsage`: user + system, all threads). */
  cpu: { recoverMs: number; executeMs: number; rootMs: number; commitMs: number };
}

/** Result of one accepted block. */
export interface ImportedBlock {
  number: bigint;
  hash: Uint8Array;
  txs: number;
  gasUsed: bigint;
  fastPathTxs: number;
  timings: ImportTimings;
}

/** The producer's commit: the accepted block, and the body and receipts bytes its store write holds. */
export interface CommittedBlock extends ImportedBlock {
  written: Pick<BlockRecord, 'bodyRlp' | 'receiptsRlp'>;
}

/** Options of the importer. */
export interface BlockImporterOptions {
  config: ChainConfig;
  /** Keep change sets for only the last N blocks (default: full history). */
  historyBlocks?: number;
  /** Value-transfer fast path (default true). */
  fastPath?: boolean;
  /** Sender recovery for a block's transactions (default: in-thread, one by one). */
  recoverSenders?: (txs: readonly Transaction[]) => Uint8Array[] | Promise<Uint8Array[]>;
  /** The CPU clock of the `cpu` timings (default `processCpuMs`; `noCpuClock` reads 0 and costs nothing). */
  cpuClock?: CpuClock;
}

/** Genesis as the importer needs it. */
export interface GenesisInput {
  header: Header;
  alloc: GenesisAlloc;
}

function allocEntries(alloc: GenesisAlloc): Array<[Uint8Array, AllocAccount]> {
  return [...alloc.values()].map((a) => [
    a.address,
    { balance: a.balance, nonce: a.nonce, code: a.code, storage: [...a.storage].map(([k, v]) => [Buffer.from(k, 'hex'), v] as const) },
  ]);
}

function parentForkOf(config: ChainConfig, h: Header): Fork {
  return forkAt(config, Number(h.number), Number(h.timestamp));
}

/** Imports blocks on top of the store's head. One instance per store (the chain thread's writer). */
export class BlockImporter {
  readonly hosts = new EvmHostCache();
  private readonly computer: StateRootComputer;
  private readonly cpuNow: CpuClock;
  private head: ParentInfo;
  /** Total difficulty of the head (fork choice; written with every block). */
  private td: bigint;

  private constructor(
    readonly store: ChainStore,
    readonly state: StoreState,
    private readonly options: BlockImporterOptions,
    head: ParentInfo,
  ) {
    this.head = head;
    this.td = totalDifficultyOf(store, head.hash, head.header);
    this.computer = new StateRootComputer(state.nodes, head.header.stateRoot);
    this.cpuNow = options.cpuClock ?? processCpuMs;
  }

  /** The chain's configuration. */
  get config(): ChainConfig {
    return this.options.config;
  }

  /** Total difficulty of the head. */
  get headTd(): bigint {
    return this.td;
  }

  /** Whether the value-transfer fast path is on. */
  get fastPath(): boolean | undefined {
    return this.options.fastPath;
  }

  /** Opens on `store`, writing `genesis` (block and state) first when the store is empty; checks it otherwise. */
  static open(store: ChainStore, genesis: GenesisInput, options: BlockImporterOptions): BlockImporter {
    const state = new StoreState(store);
    // Account rows and trie nodes written once per batch (decision 0025).
    state.attach(store);
    const genesisHash = headerHash(genesis.header);
    const stored = store.getCanonicalHash(0);
    if (stored === undefined) {
      const root: { value: Uint8Array } = { value: new Uint8Array(0) };
      store.putBlock(
        {
          number: 0,
          hash: genesisHash,
          parentHash: genesis.header.parentHash,
          headerRlp: ethereumHeaderCodec.encode(genesis.header),
          bodyRlp: encodeBlockBody({ transactions: [], ommers: [], withdrawals: genesis.header.withdrawalsRoot ? [] : undefined }),
          receiptsRlp: encodeReceiptsForStorage([]),
          txHashes: [],
          logs: [],
          td: genesis.header.difficulty,
        },
        () => {
          root.value = applyAlloc(state, allocEntries(genesis.alloc));
          if (!equalBytes(root.value, genesis.header.stateRoot))
            throw mismatch('BLOCK_BAD_STATE_ROOT', 'genesis stateRoot', bytesToHex(root.value), bytesToHex(genesis.header.stateRoot));
          state.putRoot(0, root.value);
        },
      );
      store.steady();
    } else if (!equalBytes(stored, genesisHash)) {
      throw new XoneError(
        'GENESIS_MISMATCH',
        `datadir holds genesis ${bytesToHex(stored)}, the given genesis is ${bytesToHex(genesisHash)}`,
        {
          stored: bytesToHex(stored),
          given: bytesToHex(genesisHash),
        },
      );
    }
    const headMarker = store.getHead('head');
    const headRow = headMarker && store.getHeaderByHash(headMarker.hash);
    if (!headMarker || !headRow) throw new XoneError('STORE_NO_HEAD', 'store has no head block after genesis');
    const header = ethereumHeaderCodec.decode(decodeRlp(headRow.headerRlp), headRow.headerRlp);
    return new BlockImporter(store, state, options, { header, hash: headMarker.hash, fork: parentForkOf(options.config, header) });
  }

  /** The current head. */
  get headInfo(): Readonly<ParentInfo> {
    return this.head;
  }

  /**
   * Unwinds the chain and its state to canonical block `number` (a reorg): the store's unwind runs `unwindState` in
   * the same durable transaction; then caches, the open trie and the head follow. Returns blocks removed.
   */
  unwindTo(number: number): number {
    const removed = this.store.unwind(number, (tx) => unwindStateAndTrie(tx, this.state.nodes, number));
    this.reopenAt(number);
    return removed;
  }

  /**
   * Moves the head, the open trie and the caches to canonical block `number` after the store's rows were unwound to
   * it (inside a reorg's transaction, or after `unwind`).
   */
  reopenAt(number: number): void {
    const row = this.store.getHeaderByNumber(number);
    if (row === undefined) throw new XoneError('STORE_NO_HEAD', `no canonical header at ${number} after unwind`);
    const header = ethereumHeaderCodec.decode(decodeRlp(row.headerRlp), row.headerRlp);
    this.setHead({ header, hash: row.hash, fork: parentForkOf(this.options.config, header) });
  }

  /**
   * Gives back the read caches and the decoded trie below its top levels (between batches, when the thread is idle):
   * the next block reads what it needs again.
   */
  releaseCaches(): void {
    this.state.dropReadCaches();
    this.computer.release();
  }

  /** Makes `head` the importer's head again (a reorg that was rolled back), with a fresh trie and caches. */
  setHead(head: ParentInfo): void {
    this.state.clearCache();
    this.state.nodes.discard();
    this.head = head;
    this.td = totalDifficultyOf(this.store, head.hash, head.header);
    this.computer.reset(head.header.stateRoot);
  }

  /** The stored block `hash` as a parent (header, hash, fork), or undefined when it is not stored. */
  parentInfo(hash: Uint8Array): ParentInfo | undefined {
    const row = this.store.getHeaderByHash(hash);
    if (row === undefined) return undefined;
    const header = ethereumHeaderCodec.decode(decodeRlp(row.headerRlp), row.headerRlp);
    return { header, hash: row.hash, fork: parentForkOf(this.options.config, header) };
  }

  /** Total difficulty of the stored block `hash` (undefined when it is not stored). */
  totalDifficulty(hash: Uint8Array): bigint | undefined {
    const info = this.parentInfo(hash);
    return info && totalDifficultyOf(this.store, hash, info.header);
  }

  /**
   * The checks of a block that need no execution, against its parent: header rules, body roots, ommer rules and
   * each transaction's static validity. Throws BlockInvalidError naming the first broken rule.
   */
  checkBlock(block: Block, parent: ParentInfo): Fork {
    const { config } = this.options;
    const header = block.header;
    const fork = forkAt(config, Number(header.number), Number(header.timestamp));
    validateHeader(header, parent, config, fork);
    try {
      verifyBodyRoots(block);
    } catch (err) {
      const e = err as XoneError;
      throw new BlockInvalidError('BLOCK_BAD_BODY', `invalid block: ${e.message}`, { ...e.meta });
    }
    validateOmmers(header, block.ommers, config, (h) => this.ancestor(h));
    block.transactions.forEach((tx, i) => {
      try {
        validateTransactionStatic(tx, { fork, chainId: config.chainId });
      } catch (err) {
        const e = err as XoneError;
        throw new BlockInvalidError('BLOCK_BAD_TX', `invalid block: transaction ${i}: ${e.message}`, { txIndex: i, txCode: e.code });
      }
    });
    return fork;
  }

  /** The senders of `block`: `given` when passed, else recovered (a failure is the block's: BLOCK_BAD_TX). */
  async senders(block: Block, given?: Promise<Uint8Array[]> | Uint8Array[]): Promise<Uint8Array[]> {
    let recovered: Uint8Array[];
    try {
      recovered = given === undefined ? await this.recover(block.transactions) : await given;
    } catch (err) {
      if (err instanceof BlockInvalidError) throw err;
      const e = err as XoneError;
      throw new BlockInvalidError('BLOCK_BAD_TX', `invalid block: sender recovery: ${e.message}`, { ...e.meta, cause: e.code });
    }
    if (recovered.length !== block.transactions.length) {
      throw new XoneError('IMPORT_BAD_SENDERS', `${recovered.length} senders for ${block.transactions.length} transactions`);
    }
    return recovered;
  }

  /** Decodes and imports one block's RLP. */
  async importRlp(rlp: Uint8Array): Promise<ImportedBlock> {
    let block: Block;
    try {
      block = decodeBlock(rlp);
    } catch (err) {
      throw new BlockInvalidError('BLOCK_BAD_BODY', `invalid block: cannot decode: ${(err as Error).message}`, {
        cause: (err as XoneError).code,
      });
    }
    return this.importBlock(block);
  }

  /**
   * Validates, executes and commits `block` on top of the head; throws BlockInvalidError with the reason.
   * `senders`, when given, are the block's recovered senders (a caller that recovers the next block while this one
   * executes passes the pending result); otherwise they are recovered here; the store keeps them with the block.
   * `preState` writes to the block's working state before its transactions (the dev producer's state edits; see
   * executeBlock).
   */
  async importBlock(
    block: Block,
    senders?: Promise<Uint8Array[]> | Uint8Array[],
    preState?: ExecuteBlockContext['preState'],
  ): Promise<ImportedBlock> {
    const { config } = this.options;
    const header = block.header;
    const parent = this.head;
    const fork = this.checkBlock(block, parent);
    const t0 = performance.now();
    const c0 = this.cpuNow();
    const recovered = await this.senders(block, senders);
    const t1 = performance.now();
    const c1 = this.cpuNow();
    const hash = headerHash(header);
    try {
      const exec = await executeBlock(block, recovered, {
        hosts: this.hosts,
        state: this.state,
        config,
        fork,
        blockHash: (n) => (n === parent.header.number ? parent.hash : this.store.getCanonicalHash(Number(n))),
        fastPath: this.options.fastPath,
        ...(preState ? { preState } : {}),
      });
      const t2 = performance.now();
      const c2 = this.cpuNow();
      const changes = exec.state.changes();
      const { root, storageRoots, encoded } = this.computer.apply(changes, (key) => exec.state.accountByKey(key));
      if (!equalBytes(root, header.stateRoot))
        throw mismatch('BLOCK_BAD_STATE_ROOT', 'stateRoot', bytesToHex(root), bytesToHex(header.stateRoot));
      const t3 = performance.now();
      const c3 = this.cpuNow();
      const td = this.td + header.difficulty;
      writeBlock(this.store, this.state, this.options.historyBlocks, {
        block,
        hash,
        receipts: exec.receipts,
        changes,
        roots: { root, storageRoots, encoded },
        senders: recovered,
        td,
      });
      const t4 = performance.now();
      const c4 = this.cpuNow();
      this.head = { header, hash, fork };
      this.td = td;
      return imported(block, hash, exec, {
        recoverMs: t1 - t0,
        executeMs: t2 - t1,
        rootMs: t3 - t2,
        commitMs: t4 - t3,
        cpu: { recoverMs: c1 - c0, executeMs: c2 - c1, rootMs: c3 - c2, commitMs: c4 - c3 },
      });
    } catch (err) {
      this.rollBack(parent.header.stateRoot);
      throw err;
    }
  }

  /**
   * The producer's commit (docs/decisions/0024-producer-executes-once.md): `exec` is `runBlock` of the block's
   * transactions on this importer's head state, done by the block builder, so nothing executes again. The state root is
   * folded into the open trie here; `finish(stateRoot)` returns the final block (header filled and sealed). Header rules
   * are checked as for any import, and the block goes through the same store write as `importBlock` (`writeBlock`).
   * Any failure leaves store, trie and caches as they were. Followers still verify everything.
   */
  async commitExecuted(
    exec: BlockExecution,
    senders: readonly Uint8Array[],
    finish: (stateRoot: Uint8Array) => Block | Promise<Block>,
    executed: { ms: number; cpuMs: number } = { ms: 0, cpuMs: 0 },
    rules: { devHeader?: boolean } = {},
  ): Promise<CommittedBlock> {
    const { config } = this.options;
    const parent = this.head;
    try {
      const t0 = performance.now();
      const c0 = this.cpuNow();
      const changes = exec.state.changes();
      const roots = this.computer.apply(changes, (key) => exec.state.accountByKey(key));
      const t1 = performance.now();
      const c1 = this.cpuNow();
      const block = await finish(roots.root);
      const header = block.header;
      if (!equalBytes(header.stateRoot, roots.root))
        throw mismatch('BLOCK_BAD_STATE_ROOT', 'stateRoot', bytesToHex(roots.root), bytesToHex(header.stateRoot));
      if (header.gasUsed !== exec.gasUsed) throw mismatch('BLOCK_BAD_GAS_USED', 'gasUsed', exec.gasUsed, header.gasUsed);
      if (block.transactions.length !== exec.receipts.length || senders.length !== exec.receipts.length) {
        throw new XoneError(
          'IMPORT_BAD_SENDERS',
          `${block.transactions.length} transactions, ${senders.length} senders, ${exec.receipts.length} receipts`,
        );
      }
      const fork = forkAt(config, Number(header.number), Number(header.timestamp));
      validateHeader(header, parent, config, fork, rules.devHeader === true ? { devHeader: true } : {});
      const hash = headerHash(header);
      const t2 = performance.now();
      const c2 = this.cpuNow();
      const td = this.td + header.difficulty;
      const record = writeBlock(this.store, this.state, this.options.historyBlocks, {
        block,
        hash,
        receipts: exec.receipts,
        changes,
        roots,
        senders,
        td,
      });
      const t3 = performance.now();
      const c3 = this.cpuNow();
      this.head = { header, hash, fork };
      this.td = td;
      const accepted = imported(block, hash, exec, {
        recoverMs: 0,
        executeMs: executed.ms,
        rootMs: t1 - t0,
        commitMs: t3 - t2,
        cpu: { recoverMs: 0, executeMs: executed.cpuMs, rootMs: c1 - c0, commitMs: c3 - c2 },
      });
      return { ...accepted, written: { bodyRlp: record.bodyRlp, receiptsRlp: record.receiptsRlp } };
    } catch (err) {
      this.rollBack(parent.header.stateRoot);
      throw err;
    }
  }

  /** A failed import or commit: the open trie back at the parent's root, buffered nodes and cached reads dropped. */
  private rollBack(parentRoot: Uint8Array): void {
    this.computer.reset(parentRoot);
    this.state.nodes.discard();
    this.state.clearCache();
  }

  /** A stored block by hash with its ommers (for the ommer rules). */
  private ancestor(hash: Uint8Array): Ancestor | undefined {
    const row = this.store.getHeaderByHash(hash);
    if (row === undefined) return undefined;
    const header = ethereumHeaderCodec.decode(decodeRlp(row.headerRlp), row.headerRlp);
    const body = this.store.getBody(hash);
    const ommers = body === undefined ? [] : decodeBlockBody(body, header).ommers;
    return { header, hash: row.hash, ommers };
  }

  private async recover(txs: readonly Transaction[]): Promise<Uint8Array[]> {
    if (this.options.recoverSenders) return this.options.recoverSenders(txs);
    return txs.map((tx, i) => {
      try {
        return recoverSender(tx);
      } catch (err) {
        const e = err as XoneError;
        throw new BlockInvalidError('BLOCK_BAD_TX', `invalid block: transaction ${i}: ${e.message}`, { txIndex: i, txCode: e.code });
      }
    });
  }
}

/** What an import or a producer commit reports. */
function imported(block: Block, hash: Uint8Array, exec: BlockExecution, timings: ImportTimings): ImportedBlock {
  return {
    number: block.header.number,
    hash,
    txs: block.transactions.length,
    gasUsed: exec.gasUsed,
    fastPathTxs: exec.fastPathTxs,
    timings,
  };
}

/**
 * Total difficulty of the stored block `hash` (its header `header`): the recorded value, else (a block stored before
 * the store kept TD) its parent's plus its own difficulty, down to the first block with a recorded value or to
 * genesis; canonical stretches are summed from the headers' difficulty fields.
 */
export function totalDifficultyOf(store: ChainStore, hash: Uint8Array, header: Header): bigint {
  const recorded = store.getTotalDifficulty(hash);
  if (recorded !== undefined) return recorded;
  let sum = header.difficulty;
  let cursor = store.getHeaderByHash(header.parentHash);
  while (cursor !== undefined) {
    const td = store.getTotalDifficulty(cursor.hash);
    if (td !== undefined) return sum + td;
    sum += headerDifficulty(cursor.headerRlp);
    if (cursor.number === 0) return sum;
    cursor = store.getHeaderByHash(cursor.parentHash);
  }
  return sum;
}
