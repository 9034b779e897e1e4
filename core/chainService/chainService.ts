/**
 * The chain service: the one writer of a datadir. It owns the store's write connection, the import pipeline and the
 * signer, and runs production and follower import. It is the body of the chain thread (ARCHITECTURE.md: "chain
 * thread (worker): owns the one SQLite write connection and the segment writer; import and produce pipeline"), and
 * also runs in-thread for tests and tools. Everything it returns is plain data that survives postMessage.
 */
import type { Block } from '../chain/block/index.ts';
import type { Genesis } from '../chain/genesis/index.ts';
import { ethereumHeaderCodec, type Header } from '../chain/header/index.ts';
import { decodeTransaction, signTransaction } from '../chain/transaction/index.ts';
import { CliqueEngine, NONCE_AUTH_VOTE, NONCE_DROP_VOTE } from '../consensus/clique/index.ts';
import type { ConsensusEngine, HeaderReader } from '../consensus/interface.ts';
import { trustedEngine } from '../consensus/trusted.ts';
import { XoneError } from '../errors.ts';
import { EvmHostCache } from '../exec/evmHost.ts';
import { BlockImporter, type ImportedBlock } from '../exec/import/blockImporter.ts';
import { ChainImporter, type AddedBlock, type DroppedBlock, type OrphanedTx } from '../exec/import/chainImporter.ts';
import { bytesToHex, equalBytes } from '../primitives/hex.ts';
import { decodeRlp } from '../primitives/rlp.ts';
import { addressFromPrivateKey } from '../primitives/secp256k1/index.ts';
import { ChainStore, fullWhileFlagFs, type CommitSurvives, type Durability, type StoreLogger } from '../store/index.ts';
import { buildBlock, type BuildContext, type BuiltBlock } from './produce/buildBlock.ts';
import { NODE_MIGRATIONS } from './migrations.ts';
import type { SenderRecovery } from '../runtime/recovery/index.ts';
import { pipelineSenders } from './senderPipeline.ts';
import { applyDevEdits, type DevStateEdit } from './devStateEdits.ts';
import type { JournaledState } from '../state/journaledState.ts';
import { noCpuClock, processCpuMs, type CpuClock } from '../exec/cpuClock.ts';
import { keccak256 } from '../primitives/keccak.ts';

/** The warm-up block's sender (`warmUp`): a key derived from a fixed phrase, whose transfer is never committed. */
const WARM_UP_KEY = keccak256(new TextEncoder().encode('xone chain thread warm-up'));

export interface ChainServiceOptions {
  datadir: string;
  genesis: Genesis;
  /** 0 = producer (each block durable on its own), 1-128 = follower group commit. */
  batch: number;
  /** The Clique signer's private key, for --mine. */
  signerKey?: Uint8Array;
  /** Check seals of imported blocks (false for trusted import). Default: true on Clique chains. */
  verifySeals?: boolean;
  historyBlocks?: number;
  /** Follower import: sender recovery threads the chain thread starts (`--recovery-workers`; 0 or unset = in-thread). */
  recoveryWorkers?: number;
  /**
   * Measure the CPU splits of produced blocks (`ProducePhases.cpu`, default true). The node turns it off: reading
   * process CPU costs more than a small block's seal (core/exec/cpuClock.ts), and its log line shows wall times.
   */
  cpuSplit?: boolean;
  /** What a returned commit survives (`StoreOptions.commitSurvives`): 'process-exit' on the dev chain only. */
  commitSurvives?: CommitSurvives;
  /** Test seam (XONE_TEST_DISK_FULL_FILE): while this file exists, the store's segment writes fail with ENOSPC. */
  diskFullWhile?: string;
}

/** A block that became part of the canonical chain (durable when `durable` is true). */
export interface HeadUpdate {
  number: bigint;
  hash: Uint8Array;
  headerRlp: Uint8Array;
  txHashes: Uint8Array[];
  gasUsed: bigint;
  timings: ImportedBlock['timings'];
  /** False while a follower batch is still open; the batch's last update is followed by `steady()`. */
  durable: boolean;
  /** Total difficulty of the chain ending at this block. */
  td: bigint;
  /**
   * Set on the first block of a new branch: before it became the head, the canonical chain was unwound to `ancestor`
   * and `dropped` (lowest first) left it, in the same durable commit.
   */
  reorg?: { ancestor: { number: bigint; hash: Uint8Array }; dropped: DroppedBlock[]; orphaned: OrphanedTx[] };
}

/** What the producer needs to time its next seal (Clique: in turn at the slot, out of turn after a random delay). */
export interface SealPlan {
  parentHash: Uint8Array;
  parentNumber: bigint;
  parentTimestamp: bigint;
  /** Seconds between blocks (Clique `period`; 0 = as soon as there is work). */
  period: number;
  /** Whether our signer may seal the next block (authorized and not among the recent signers). */
  canSeal: boolean;
  inTurn: boolean;
  /** Random wait after the slot time for an out-of-turn signer (geth's wiggle), in ms; 0 in turn. */
  wiggleMs: number;
}

export interface ProduceRequest {
  /** Raw transactions in block order, each with its sender already recovered by the pool. */
  txs: { raw: Uint8Array; sender: Uint8Array }[];
  timestamp: bigint;
  /** Dev chain only: state edits (anvil_setBalance and kin) applied before the transactions, sealed into this block. */
  devEdits?: DevStateEdit[];
  /** Dev chain only: header fields chosen by the user instead of the rules (anvil_setNextBlockBaseFeePerGas and kin). */
  devHeader?: DevHeaderFields;
  /** The head the caller planned on; refused with NODE_STALE_PARENT when another block became the head meanwhile. */
  parentHash?: Uint8Array;
}

/**
 * Header fields a dev chain user may set (anvil_setNextBlockBaseFeePerGas, evm_setBlockGasLimit, anvil_setCoinbase).
 * The base fee and gas limit rules are not checked for such a block; the coinbase is kept off Clique checkpoints and
 * paired with a vote nonce the snapshot ignores, so it never changes the signer set.
 */
export interface DevHeaderFields {
  baseFeePerGas?: bigint;
  gasLimit?: bigint;
  coinbase?: Uint8Array;
}

export interface ProduceResult {
  head: HeadUpdate;
  /**
   * The sealed block as stored: its body and receipts bytes and its senders, so the main thread serves and publishes
   * it (receipts for the encodings, filters and log lines) without reading back what this thread just wrote.
   */
  block: ProducedBlock;
  /** Hashes of transactions left out because they were no longer valid. */
  dropped: Uint8Array[];
  /** Where the chain thread's time went, in milliseconds (bench:produce and the producer's log line). */
  phases: ProducePhases;
}

/** A produced block's stored bytes (`ProduceResult.block`); its header is the update's `headerRlp`. */
export interface ProducedBlock {
  bodyRlp: Uint8Array;
  receiptsRlp: Uint8Array;
  senders: readonly Uint8Array[];
}

/** Wall-clock milliseconds of each production step in the chain thread. */
export interface ProducePhases {
  decodeMs: number;
  /** Execution and body roots (split in `build`). */
  buildMs: number;
  build: BuiltBlock['timings'];
  /** The build's state changes folded into the importer's open trie. */
  stateRootMs: number;
  sealMs: number;
  /** The store write (one durable commit). */
  commitMs: number;
  /** The same steps in process CPU milliseconds (user + system): wall time lies on a loaded host. */
  cpu: { decodeMs: number; buildMs: number; stateRootMs: number; sealMs: number; commitMs: number };
  totalMs: number;
  totalCpuMs: number;
}

export class ChainService {
  private readonly hosts = new EvmHostCache();
  private readonly engine: ConsensusEngine;
  private readonly signerAddress: Uint8Array | undefined;
  /** Follower import's sender recovery (the chain thread's pool): the next block's senders are recovered ahead. */
  senderRecovery: SenderRecovery | undefined;
  /** Called after each imported block (the chain thread's heap guard: a batch is one request of up to 128 blocks). */
  afterBlock: (() => void) | undefined;

  private readonly chain: ChainImporter;
  private readonly cpuNow: CpuClock;

  private constructor(
    readonly store: ChainStore,
    private readonly importer: BlockImporter,
    private readonly options: ChainServiceOptions,
  ) {
    const clique = options.genesis.config.clique;
    this.engine = clique ? new CliqueEngine({ config: clique }) : trustedEngine;
    this.chain = new ChainImporter(importer, this.engine.forkChoice);
    this.signerAddress = options.signerKey ? addressFromPrivateKey(options.signerKey) : undefined;
    this.cpuNow = options.cpuSplit === false ? noCpuClock : processCpuMs;
  }

  static open(options: ChainServiceOptions, logger?: StoreLogger): ChainService {
    const store = ChainStore.open(
      { datadir: options.datadir, batch: options.batch, ...(options.commitSurvives ? { commitSurvives: options.commitSurvives } : {}) },
      {
        migrations: NODE_MIGRATIONS,
        ...(logger ? { logger } : {}),
        ...(options.diskFullWhile ? { segmentFs: fullWhileFlagFs(options.diskFullWhile) } : {}),
      },
    );
    try {
      return new ChainService(store, ChainService.openImporter(store, options), options);
    } catch (err) {
      store.close();
      throw err;
    }
  }

  private static openImporter(store: ChainStore, options: ChainServiceOptions): BlockImporter {
    return BlockImporter.open(
      store,
      { header: options.genesis.genesisHeader, alloc: options.genesis.alloc },
      {
        config: options.genesis.config,
        historyBlocks: options.historyBlocks,
        ...(options.cpuSplit === false ? { cpuClock: noCpuClock } : {}),
      },
    );
  }

  /** Unwinds the canonical chain and its state to block `number` (the dev chain's evm_revert). */
  unwindTo(number: bigint): void {
    this.importer.unwindTo(Number(number));
  }

  head(): { number: bigint; hash: Uint8Array; header: Header; td: bigint } {
    const h = this.importer.headInfo;
    return { number: h.header.number, hash: h.hash, header: h.header, td: this.importer.headTd };
  }

  /** Whether the block `hash` is stored (canonical or on a side chain). */
  hasBlock(hash: Uint8Array): boolean {
    return this.store.getHeaderByHash(hash) !== undefined;
  }

  /** When and whether our signer should seal the next block on the current head. */
  sealPlan(): SealPlan {
    const head = this.importer.headInfo;
    const clique = this.options.genesis.config.clique;
    const plan = {
      parentHash: head.hash,
      parentNumber: head.header.number,
      parentTimestamp: head.header.timestamp,
      period: clique?.period ?? 0,
    };
    const signer = this.signerAddress;
    if (!(this.engine instanceof CliqueEngine) || signer === undefined)
      return { ...plan, canSeal: signer !== undefined, inTurn: true, wiggleMs: 0 };
    const snap = this.engine.snapshot(head.header, this.headerReader());
    const next = head.header.number + 1n;
    const inTurn = snap.inTurn(next, signer);
    const wiggleMs = inTurn ? 0 : this.engine.outOfTurnDelayMs(head.header, signer, this.headerReader());
    return { ...plan, canSeal: snap.canSign(signer, next), inTurn, wiggleMs };
  }

  /** Canonical hash at `number` as the writer sees it (including an open follower batch). */
  canonicalHash(number: bigint): Uint8Array | undefined {
    return this.store.getCanonicalHash(Number(number));
  }

  durability(): Durability {
    return this.store.durability();
  }

  /** Builds, seals and durably commits the next block (producer mode). */
  async produce(request: ProduceRequest): Promise<ProduceResult> {
    if (!this.options.signerKey || !this.signerAddress)
      throw new XoneError('NODE_NO_SIGNER', 'cannot produce blocks: no signer key configured');
    if (this.store.durability().kind !== 'Durable')
      throw new XoneError('NODE_NOT_DURABLE', 'refusing to sign while the store is not durable');
    const parent = this.importer.headInfo;
    if (request.parentHash !== undefined && !equalBytes(request.parentHash, parent.hash))
      throw new XoneError(
        'NODE_STALE_PARENT',
        `the head moved to ${parent.header.number} before block ${bytesToHex(request.parentHash)}'s child was sealed`,
        {
          head: parent.header.number.toString(),
        },
      );
    if (
      this.engine instanceof CliqueEngine &&
      !this.engine.snapshot(parent.header, this.headerReader()).canSign(this.signerAddress, parent.header.number + 1n)
    )
      throw new XoneError(
        'NODE_CANNOT_SEAL',
        `signer ${bytesToHex(this.signerAddress)} signed recently or is not a signer: block ${parent.header.number + 1n} is not ours`,
        {
          number: (parent.header.number + 1n).toString(),
        },
      );
    const t0 = performance.now();
    const c0 = this.cpuNow();
    const candidates = request.txs.map((t) => ({ tx: decodeTransaction(t.raw), sender: t.sender }));
    const edits = request.devEdits;
    const preState = edits?.length ? (state: JournaledState) => applyDevEdits(state, edits) : undefined;
    const t1 = performance.now();
    const c1 = this.cpuNow();
    let sealed: Block | undefined;
    const devHeader = request.devHeader;
    const built = await buildBlock(candidates, request.timestamp, {
      ...this.buildContext(parent),
      ...(preState ? { preState } : {}),
      ...(devHeader ? { devHeader } : {}),
    });
    const t2 = performance.now();
    const c2 = this.cpuNow();
    let sealMs = 0;
    let sealCpuMs = 0;
    // Executed once (decision 0024): the importer folds the build's state changes into its open trie, this seals the
    // header with that root, and the block commits through the importer's store write. The pool's senders go in as they
    // are (never recovered again) and are stored in the block's own savepoint.
    const imported = await this.importer.commitExecuted(
      built.exec,
      built.senders,
      (stateRoot) => {
        const s0 = performance.now();
        const sc0 = this.cpuNow();
        let header: Header = { ...built.block.header, stateRoot };
        if (this.engine instanceof CliqueEngine) {
          header = this.engine.prepare(header, parent.header, this.signerAddress as Uint8Array, this.headerReader());
          const coinbase = devHeader?.coinbase;
          if (coinbase && header.number % BigInt(this.options.genesis.config.clique?.epoch ?? 30000) !== 0n) {
            // A vote the snapshot ignores: "add" for an existing signer, "drop" for anyone else.
            const signer = this.engine.snapshot(parent.header, this.headerReader()).isSigner(coinbase);
            header = { ...header, coinbase: built.block.header.coinbase, nonce: signer ? NONCE_AUTH_VOTE : NONCE_DROP_VOTE };
          }
          header = this.engine.seal(header, this.options.signerKey as Uint8Array, this.signerAddress);
        }
        // Final from here: its RLP travels with it, so the commit's hash, the block record, the reply and the next
        // block's Clique snapshot and parent checks never encode it again.
        header.rlp = ethereumHeaderCodec.encode(header);
        sealMs = performance.now() - s0;
        sealCpuMs = this.cpuNow() - sc0;
        sealed = { ...built.block, header };
        return sealed;
      },
      { ms: built.timings.executeMs, cpuMs: built.timings.cpu.executeMs },
      { devHeader: devHeader !== undefined },
    );
    const block = sealed as Block;
    // The next seal's signer checks start from this block's snapshot: made now from the parent's (cached by the checks
    // above) with the parent header in hand, the next block reads no header from the store for it (one read and decode
    // per block was 6.8 % of the dev chain thread, session 7).
    if (this.engine instanceof CliqueEngine) this.engine.snapshot(block.header, this.headerReader(parent));
    const t4 = performance.now();
    const c4 = this.cpuNow();
    const phases: ProducePhases = {
      decodeMs: t1 - t0,
      buildMs: t2 - t1,
      build: built.timings,
      stateRootMs: imported.timings.rootMs,
      sealMs,
      commitMs: imported.timings.commitMs,
      cpu: {
        decodeMs: c1 - c0,
        buildMs: c2 - c1,
        stateRootMs: imported.timings.cpu.rootMs,
        sealMs: sealCpuMs,
        commitMs: imported.timings.cpu.commitMs,
      },
      totalMs: t4 - t0,
      totalCpuMs: c4 - c0,
    };
    return {
      head: this.update({ block, imported }, true, this.importer.headTd),
      block: { ...imported.written, senders: built.senders },
      dropped: built.dropped.map((t) => t.hash),
      phases,
    };
  }

  /** What every block this thread builds on `parent` shares: the chain's rules, its state and history, the EVMs. */
  private buildContext(parent: BuildContext['parent']): BuildContext {
    return {
      config: this.options.genesis.config,
      parent,
      state: this.importer.state,
      hosts: this.hosts,
      blockHash: (n) => this.store.getCanonicalHash(Number(n)),
      cpuClock: this.cpuNow,
    };
  }

  /**
   * Runs the producer's path once on a throwaway block and drops it (the dev chain, at start-up): a transfer from a
   * key nobody holds, funded by a dev state edit, is built, executed, folded into the state root and sealed, then the
   * commit is refused before anything is written (the importer rolls back as after a failed seal). A fresh node's
   * first blocks otherwise pay for compiling that code: the first automine sends took 2-3x the later ones. Returns how
   * many transactions the dropped block executed (1; 0 without a signer).
   */
  async warmUp(): Promise<{ transactions: number }> {
    const key = this.options.signerKey;
    if (!key || !this.signerAddress) return { transactions: 0 };
    const parent = this.importer.headInfo;
    const from = addressFromPrivateKey(WARM_UP_KEY);
    const tx = signTransaction(
      {
        type: 2,
        chainId: this.options.genesis.config.chainId,
        nonce: this.importer.state.getAccount(from)?.nonce ?? 0n,
        maxPriorityFeePerGas: 1n,
        maxFeePerGas: 2n * (parent.header.baseFeePerGas ?? 0n) + 1_000_000_000n,
        gasLimit: 21_000n,
        to: this.signerAddress,
        value: 1n,
        data: new Uint8Array(0),
      },
      WARM_UP_KEY,
    );
    const built = await buildBlock([{ tx: decodeTransaction(tx.raw), sender: from }], parent.header.timestamp + 1n, {
      ...this.buildContext(parent),
      preState: (state) => applyDevEdits(state, [{ address: from, balance: 10n ** 18n }]),
    });
    const dropped = new Error('warm-up block dropped');
    try {
      await this.importer.commitExecuted(built.exec, built.senders, (stateRoot) => {
        let header: Header = { ...built.block.header, stateRoot };
        if (this.engine instanceof CliqueEngine) {
          header = this.engine.prepare(header, parent.header, this.signerAddress as Uint8Array, this.headerReader());
          this.engine.seal(header, key);
        }
        throw dropped;
      });
    } catch (err) {
      if (err !== dropped) throw err;
    }
    return { transactions: built.block.transactions.length };
  }

  /**
   * Verifies (seal, roots, execution) and imports raw blocks in order, as a follower, on whatever stored parent each
   * names: a block off the head is stored as a side block, and becomes the head through a reorg when the engine's fork
   * choice prefers its chain. Returns the blocks that joined the canonical chain, in order (a reorg's first block
   * carries what it dropped). With batch > 0 the blocks share one transaction; `steady()` makes them durable (a reorg
   * is durable on its own). Stops at the first invalid block and throws its error, after importing the blocks before it.
   */
  async importBlocks(rlps: readonly Uint8Array[]): Promise<HeadUpdate[]> {
    const out: HeadUpdate[] = [];
    const verifySeals = this.options.verifySeals ?? this.engine.name === 'clique';
    const verifyHeader = verifySeals ? (h: Header, p: Header) => this.engine.verifyHeader(h, p, this.headerReader()) : undefined;
    for (const { block, senders } of pipelineSenders(rlps, this.senderRecovery)) {
      const result = await this.chain.insert(block, {
        ...(senders ? { senders } : {}),
        ...(verifyHeader ? { verifyHeader } : {}),
      });
      if (result.kind === 'head') out.push(this.update(result, this.store.batch === 0, this.importer.headTd));
      else if (result.kind === 'reorg') {
        const { ancestor, dropped, added, orphaned } = result.reorg;
        // Everything before the reorg was made durable by it, and the reorg commits durably.
        for (const u of out) u.durable = true;
        const tds: bigint[] = [];
        let td = this.importer.headTd;
        for (let i = added.length - 1; i >= 0; i--) {
          tds[i] = td;
          td -= added[i].block.header.difficulty;
        }
        added.forEach((a, i) =>
          out.push({ ...this.update(a, true, tds[i]), ...(i === 0 ? { reorg: { ancestor, dropped, orphaned } } : {}) }),
        );
      }
      this.afterBlock?.();
    }
    return out;
  }

  /** A passive WAL checkpoint between transactions (for readers that pin snapshots; ChainStore.checkpoint). */
  checkpoint(): boolean {
    return this.store.checkpoint();
  }

  /** Makes an open follower batch durable. */
  steady(): void {
    this.store.steady();
  }

  /**
   * Idle: gives back the importer's read caches and decoded trie (the heap guard's idle GC then frees them) and the
   * write connection's page cache (the malloc trim after that GC returns its pages).
   */
  releaseCaches(): void {
    this.importer.releaseCaches();
    this.store.releaseMemory();
  }

  close(): void {
    this.store.close();
  }

  private update({ block, imported }: AddedBlock, durable: boolean, td: bigint): HeadUpdate {
    return {
      number: imported.number,
      hash: imported.hash,
      headerRlp: ethereumHeaderCodec.encode(block.header),
      txHashes: hashViews(block.transactions),
      gasUsed: imported.gasUsed,
      timings: imported.timings,
      durable,
      td,
    };
  }

  /** Headers from the store; `known` (a header already decoded, e.g. a produced block's parent) without a read. */
  private headerReader(known?: { hash: Uint8Array; header: Header }): HeaderReader {
    return {
      headerByHash: (hash) => {
        if (known && equalBytes(hash, known.hash)) return known.header;
        const row = this.store.getHeaderByHash(hash);
        return row ? ethereumHeaderCodec.decode(decodeRlp(row.headerRlp), row.headerRlp) : undefined;
      },
    };
  }
}

/**
 * The block's transaction hashes as 32-byte views of one buffer: a follower batch keeps up to 128 blocks' updates
 * until it replies, and a hash with its own ArrayBuffer costs ~200 bytes of heap (13 MB for a 48-block batch).
 */
function hashViews(txs: Block['transactions']): Uint8Array[] {
  const all = new Uint8Array(txs.length * 32);
  return txs.map((t, i) => {
    all.set(t.hash, i * 32);
    return all.subarray(i * 32, i * 32 + 32);
  });
}
