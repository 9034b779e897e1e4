/**
 * The durable chain store: one owning writer per datadir. Headers and indexes live in SQLite (WAL, synchronous=FULL),
 * bodies and receipts in CRC-framed segment files. Every commit follows the publication order: append segment bytes
 * → fsync the files written → fsync `segments/` if a file was created → COMMIT, so SQLite never points at bytes that
 * were not synced. Producer mode (batch 0) commits each block durably; follower mode shares one transaction among up
 * to `batch` blocks, one SAVEPOINT each, made durable by `steady()`. See docs/store.md.
 */
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { BlockWrites } from './blockWrites.ts';
import { transactionHandle, type StoreTransaction } from './connection.ts';
import { DatadirLock } from './datadirLock.ts';
import { StoreError } from './errors.ts';
import { resolveStoreDeps, resolveStoreOptions, type ResolvedStoreOptions, type StoreDeps, type StoreOptions } from './options.ts';
import { ChainReader } from './read/chainReader.ts';
import { reconcile, type ReconcileReport } from './reconcile.ts';
import { SEGMENTS_DIR } from './segment/segmentFiles.ts';
import { SegmentReader } from './segment/segmentReader.ts';
import { SegmentWriter, type WriterMark, type WriterStats } from './segment/segmentWriter.ts';
import { SideBlocks } from './sideBlocks.ts';
import { openWriterDatabase, prepareDatadir, syncDatabaseFiles } from './sqlite/openDatabase.ts';
import type { BlockRecord, Durability, HeadName } from './types.ts';
import { validateBlockRecord } from './validateBlock.ts';
import { toWriteError } from './writeErrors.ts';

/**
 * Extra writes a caller runs inside a block's savepoint or an unwind's transaction (execution state, change sets),
 * through the state store's functions, which take the opaque transaction handle.
 */
export type ExtraWrites = (tx: StoreTransaction) => void;

/**
 * A writer that keeps part of a batch's writes in memory and writes them once per batch (the state layer: account
 * rows and trie nodes, decision 0025). `blockAccepted` runs after a block's savepoint is released; `beforeCommit`
 * runs inside the open transaction before the segment sync and COMMIT of `steady()` (so publication order is
 * unchanged); `batchAborted` runs when the whole open batch was rolled back.
 */
export interface BatchHook {
  blockAccepted(): void;
  beforeCommit(tx: StoreTransaction): void;
  batchAborted(): void;
}

/** Counters of the work the store did, for benchmarks and metrics. */
export interface StoreStats extends WriterStats {
  commits: number;
  blocks: number;
}

/** The owning, writing handle of a datadir. */
export class ChainStore extends ChainReader {
  /** What reconcile cut at this open. */
  readonly reconcileReport: ReconcileReport;
  private readonly events = new EventEmitter();
  private readonly hooks: BatchHook[] = [];
  private readonly writes: BlockWrites;
  /** What write callbacks receive: the connection, opaque outside the SQL folders. */
  private readonly tx: StoreTransaction;
  private readonly sides: SideBlocks;
  /** True while `reorg` holds its transaction open: nothing commits it but the reorg itself. */
  private holding = false;
  private pending = 0;
  private batchMark: WriterMark | undefined;
  private commits = 0;
  private blocks = 0;
  private closed = false;

  private constructor(
    private readonly options: ResolvedStoreOptions,
    private readonly deps: ReturnType<typeof resolveStoreDeps>,
    db: BetterSqlite3.Database,
    private readonly writer: SegmentWriter,
    private readonly lock: DatadirLock,
    report: ReconcileReport,
  ) {
    super(db, new SegmentReader(join(options.datadir, SEGMENTS_DIR)), options.readDeadlineMs);
    this.writes = new BlockWrites(db);
    this.tx = transactionHandle(db);
    this.sides = new SideBlocks(db);
    this.reconcileReport = report;
  }

  /** Opens (creating if needed) the datadir: checks, settings, migrations, reconcile. Throws a StoreError on refusal. */
  static open(options: StoreOptions, deps: StoreDeps = {}): ChainStore {
    const opts = resolveStoreOptions(options);
    const d = resolveStoreDeps(deps);
    prepareDatadir(opts.datadir);
    const lock = DatadirLock.acquire(opts.datadir);
    let db: BetterSqlite3.Database | undefined;
    try {
      // The dev chain's 'process-exit' commits (decisions 0036, 0048): a COMMIT writes the WAL and a checkpoint copies
      // it into the database file without waiting for the disk (a checkpoint's two fsyncs were ~35 of its ~40 ms).
      const synchronous = opts.commitSurvives === 'process-exit' ? 'OFF' : d.synchronous;
      db = openWriterDatabase({ datadir: opts.datadir, migrations: d.migrations, synchronous });
      const segmentsDir = join(opts.datadir, SEGMENTS_DIR);
      const report = reconcile(db, segmentsDir, d.segmentFs, d.logger);
      const last = db.prepare('SELECT id, committed_size AS size FROM segments ORDER BY id DESC LIMIT 1').get() as
        { id: number; size: number } | undefined;
      const writer = new SegmentWriter(
        { segmentsDir, maxSegmentBytes: opts.maxSegmentBytes, active: last, fsync: opts.commitSurvives === 'power-loss' },
        { fs: d.segmentFs },
      );
      return new ChainStore(opts, d, db, writer, lock, report);
    } catch (err) {
      db?.close();
      lock.release();
      throw err;
    }
  }

  /** Producer when 0, else the follower batch size. */
  get batch(): number {
    return this.options.batch;
  }

  /** Flushes and commits issued so far. */
  get stats(): StoreStats {
    return { ...this.writer.stats, commits: this.commits, blocks: this.blocks };
  }

  /** `Durable`, or `Degraded(BATCH, n)` while `n` accepted blocks wait for `steady()`. */
  durability(): Durability {
    return this.pending === 0 ? { kind: 'Durable' } : { kind: 'Degraded', reason: 'BATCH', pending: this.pending };
  }

  /** Calls `listener` whenever `durability()` changes; returns the unsubscribe function. */
  onDurability(listener: (d: Durability) => void): () => void {
    this.events.on('durability', listener);
    return () => this.events.off('durability', listener);
  }

  /**
   * Appends `block` as the new canonical head. Producer: durable when this returns. Follower: part of the open batch
   * (durable at `steady()`, which runs by itself when the batch is full). A failure undoes this block only.
   */
  putBlock(block: BlockRecord, extra?: ExtraWrites): void {
    this.assertOpen();
    validateBlockRecord(block);
    try {
      this.beginIfNeeded();
      this.db.exec('SAVEPOINT block');
    } catch (err) {
      if (this.pending === 0 && this.db.inTransaction) this.db.exec('ROLLBACK');
      throw toWriteError(err, `block ${block.number}`);
    }
    const mark = this.writer.mark();
    try {
      this.requireExtendsHead(block);
      // A side block joining the chain already has its records (same hash: same body; receipts of the same execution).
      const stored = this.blockRow(block.hash);
      const reuse = stored !== undefined && stored.body_len === block.bodyRlp.length && stored.rcpt_len === block.receiptsRlp.length;
      this.writes.insertBlock(block, reuse ? undefined : this.writer.append([block.bodyRlp, block.receiptsRlp]));
      if (stored !== undefined) this.sides.remove(block.number, block.hash);
      this.sides.prune(block.number, this.bounds);
      extra?.(this.tx);
      this.db.exec('RELEASE block');
    } catch (err) {
      this.undoBlock(mark);
      throw toWriteError(err, `block ${block.number}`);
    }
    this.accepted();
  }

  /**
   * Stores `block` off the canonical chain (a side chain: a valid block whose parent is stored but is not the head,
   * or that lost fork choice): body and receipts records, the block row and its `side_blocks` entry, with `extra`
   * (its senders) in the same savepoint. Durable on the same terms as `putBlock`. The head does not move. Refused
   * when the parent is not stored, the block is already stored, or it lies more than `maxSideDepth` below the head.
   */
  putSideBlock(block: BlockRecord, extra?: ExtraWrites): void {
    this.assertOpen();
    validateBlockRecord(block);
    try {
      this.beginIfNeeded();
      this.db.exec('SAVEPOINT block');
    } catch (err) {
      if (this.pending === 0 && this.db.inTransaction && !this.holding) this.db.exec('ROLLBACK');
      throw toWriteError(err, `side block ${block.number}`);
    }
    const mark = this.writer.mark();
    try {
      this.requireSideParent(block);
      this.writes.insertBlockRow(block, this.writer.append([block.bodyRlp, block.receiptsRlp]));
      this.sides.add(block.number, block.hash);
      extra?.(this.tx);
      this.sides.prune(this.getHead('head')?.number ?? 0, this.bounds);
      this.db.exec('RELEASE block');
    } catch (err) {
      this.undoBlock(mark);
      throw toWriteError(err, `side block ${block.number}`);
    }
    this.accepted();
  }

  /** Side-chain blocks stored with no stored child (fork-choice candidates), highest first. */
  sideTips(): { number: number; hash: Uint8Array }[] {
    return this.sides.tips();
  }

  /** The side-chain bounds (`maxSideBlocks`, `maxSideDepth`). */
  get sideBounds(): { maxBlocks: number; maxDepth: number } {
    return { maxBlocks: this.options.maxSideBlocks, maxDepth: this.options.maxSideDepth };
  }

  private get bounds(): { maxBlocks: number; maxDepth: number } {
    return this.sideBounds;
  }

  /** Bookkeeping after a block's savepoint was released. */
  private accepted(): void {
    for (const h of this.hooks) h.blockAccepted();
    this.pending++;
    this.blocks++;
    if (!this.holding && this.pending >= Math.max(1, this.options.batch)) this.steady();
    else this.emitDurability();
  }

  /** Registers a batch hook (see `BatchHook`); returns the function that removes it. */
  addBatchHook(hook: BatchHook): () => void {
    this.hooks.push(hook);
    return () => {
      const i = this.hooks.indexOf(hook);
      if (i >= 0) this.hooks.splice(i, 1);
    };
  }

  /**
   * Makes the open batch durable: one sync of the segment files written, then one COMMIT. No-op when durable, and
   * inside `reorg` (whose own commit ends the transaction: a reorg is never made durable half way).
   */
  steady(): void {
    this.assertOpen();
    if (!this.db.inTransaction || this.holding) return;
    try {
      for (const h of this.hooks) h.beforeCommit(this.tx);
      this.writer.sync();
      this.deps.faults?.beforeCommit?.();
      this.db.exec('COMMIT');
      this.commits++;
    } catch (err) {
      this.abortBatch();
      throw toWriteError(err, 'commit');
    } finally {
      this.pending = 0;
      this.batchMark = undefined;
      this.emitDurability();
    }
  }

  /**
   * Unwinds the canonical chain to `number` (for a reorg): canonical entries, lookups and logs above it go, the head
   * moves back, and `extra` (state change sets) runs in the same durable transaction. Returns blocks unwound.
   */
  unwind(number: number, extra?: ExtraWrites): number {
    this.assertOpen();
    this.steady();
    const { head, target } = this.unwindTarget(number);
    this.runDurable(`unwind to ${number}`, () => {
      this.unwindRows(number, target);
      extra?.(this.tx);
    });
    return head.number - number;
  }

  /**
   * A reorg in one durable transaction: the open batch is made durable first; then the canonical chain above
   * `ancestor` leaves it (those blocks become side blocks; lookups and logs above it go), `unwindExtra` runs (state
   * change sets), and `apply` writes the new branch with `putBlock` (a savepoint each, never committed on its own).
   * One segment sync and one COMMIT end it, so a crash at any point leaves the old head or the new one, never a mix.
   * If `apply` (or the commit) throws, the whole transaction is rolled back, the new segment bytes are cut and the
   * error is rethrown: the old head stays, durably.
   */
  async reorg<T>(ancestor: number, unwindExtra: ExtraWrites | undefined, apply: () => Promise<T>): Promise<T> {
    this.assertOpen();
    if (this.holding) throw new StoreError('STORE_BAD_BLOCK', 'a reorg is already in progress');
    this.steady();
    const { target } = this.unwindTarget(ancestor);
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      throw toWriteError(err, `reorg to ${ancestor}`);
    }
    this.batchMark = this.writer.mark();
    this.holding = true;
    let result: T;
    try {
      this.unwindRows(ancestor, target);
      unwindExtra?.(this.tx);
      result = await apply();
    } catch (err) {
      this.holding = false;
      this.abortBatch();
      this.emitDurability();
      // The caller's own error (an invalid block of the new branch) passes through unchanged.
      throw err;
    }
    this.holding = false;
    this.steady();
    return result;
  }

  /** Whether a reorg transaction is open. */
  get reorging(): boolean {
    return this.holding;
  }

  private unwindTarget(number: number): { head: { number: number; hash: Uint8Array }; target: Uint8Array } {
    const head = this.getHead('head');
    const target = this.getCanonicalHash(number);
    if (!head || !target || number > head.number) {
      throw new StoreError('STORE_BAD_BLOCK', `cannot unwind to ${number}: not on the canonical chain (head ${head?.number ?? 'none'})`, {
        number,
      });
    }
    const finalized = this.getHead('finalized');
    if (finalized && finalized.number > number) {
      throw new StoreError('STORE_BAD_BLOCK', `cannot unwind to ${number}: below finalized ${finalized.number}`, {
        number,
        finalized: finalized.number,
      });
    }
    return { head, target };
  }

  /** The index side of an unwind to `number` (whose hash is `target`), inside the open transaction. */
  private unwindRows(number: number, target: Uint8Array): void {
    this.sides.addCanonicalAbove(number);
    this.writes.unwindAbove(number);
    this.writes.setHead('head', number, target);
    const safe = this.getHead('safe');
    if (safe && safe.number > number) this.writes.setHead('safe', number, target);
    this.sides.prune(number, this.bounds);
  }

  /** Moves the `safe` or `finalized` marker to canonical block `number` (inside the open batch if there is one). */
  setHead(name: Exclude<HeadName, 'head'>, number: number): void {
    this.assertOpen();
    const hash = this.getCanonicalHash(number);
    if (!hash) throw new StoreError('STORE_BAD_BLOCK', `cannot set ${name} to ${number}: not on the canonical chain`, { name, number });
    if (this.db.inTransaction) this.writes.setHead(name, number, hash);
    else this.runDurable(`set ${name}`, () => this.writes.setHead(name, number, hash));
  }

  /**
   * Gives the write connection's page cache back to the allocator (SQLite `shrink_memory`), between transactions only;
   * false when one is open. An idle follower calls it before its malloc trim (issue #18: after an import the 16 MiB
   * cache is full and glibc keeps it resident); the next block reads its pages again from the OS's page cache.
   */
  releaseMemory(): boolean {
    this.assertOpen();
    if (this.db.inTransaction) return false;
    this.db.pragma('shrink_memory');
    return true;
  }

  /**
   * A passive WAL checkpoint (copies committed pages into the database file as far as readers allow), between
   * transactions only. Readers that keep a snapshot pinned ask for it (`ReadOnlyChainStore.settle`). Returns false
   * when a transaction is open (nothing done).
   */
  checkpoint(): boolean {
    this.assertOpen();
    if (this.db.inTransaction) return false;
    this.db.pragma('wal_checkpoint(PASSIVE)');
    return true;
  }

  /**
   * Makes any open batch durable, then closes files and the connection. With 'process-exit' commits, a clean close
   * also puts what they left to the OS on the disk (segment fsync, a checkpoint, then an fsync of the database file
   * and its WAL).
   */
  close(): void {
    if (this.closed) return;
    try {
      if (this.db.inTransaction) this.steady();
      if (this.options.commitSurvives === 'process-exit') {
        this.writer.flushToDisk();
        this.db.pragma('wal_checkpoint(PASSIVE)');
        // synchronous=OFF: no checkpoint synced what it copied (and one with nothing left to copy syncs nothing).
        syncDatabaseFiles(this.db);
      }
    } finally {
      this.closed = true;
      this.writer.close();
      this.segments.close();
      this.db.close();
      this.lock.release();
    }
  }

  private runDurable(what: string, body: () => void): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      body();
      this.writer.sync();
      this.db.exec('COMMIT');
      this.commits++;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw toWriteError(err, what);
    }
  }

  private beginIfNeeded(): void {
    if (this.db.inTransaction) return;
    this.db.exec('BEGIN IMMEDIATE');
    this.batchMark = this.writer.mark();
  }

  private requireSideParent(block: BlockRecord): void {
    const parent = this.blockRow(block.parentHash);
    if (!parent || parent.number !== block.number - 1)
      throw new StoreError('STORE_BAD_BLOCK', `side block ${block.number}: its parent is not stored`, { number: block.number });
    if (this.blockRow(block.hash))
      throw new StoreError('STORE_BAD_BLOCK', `side block ${block.number} is already stored`, { number: block.number });
    const head = this.getHead('head');
    if (head && block.number < head.number - this.options.maxSideDepth)
      throw new StoreError(
        'STORE_BAD_BLOCK',
        `side block ${block.number} is more than ${this.options.maxSideDepth} blocks below the head ${head.number}`,
        {
          number: block.number,
          head: head.number,
        },
      );
  }

  private requireExtendsHead(block: BlockRecord): void {
    const head = this.getHead('head');
    if (!head) return;
    if (block.number !== head.number + 1 || Buffer.compare(block.parentHash, head.hash) !== 0) {
      throw new StoreError('STORE_BAD_BLOCK', `block ${block.number} does not extend the head ${head.number}`, {
        number: block.number,
        head: head.number,
      });
    }
  }

  /**
   * Rolls the failed block back to its savepoint; a producer's transaction ends with it (not a reorg's: the reorg
   * decides). Earlier blocks stay.
   */
  private undoBlock(mark: WriterMark): void {
    this.writer.rollbackTo(mark);
    try {
      this.db.exec('ROLLBACK TO block');
      this.db.exec('RELEASE block');
      if (this.pending === 0 && this.db.inTransaction && !this.holding) this.db.exec('ROLLBACK');
    } catch {
      // SQLite may already have rolled back the whole transaction (SQLITE_FULL does): then the batch is gone.
      if (!this.holding) {
        this.abortBatch();
        this.emitDurability();
      }
      return;
    } finally {
      this.sides.reload();
    }
    if (this.pending === 0 && !this.holding) this.batchMark = undefined;
  }

  /** Abandons the whole open batch: SQLite rolls back, segment bytes of the batch are cut. */
  private abortBatch(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
    this.sides.reload();
    for (const h of this.hooks) h.batchAborted();
    if (this.batchMark) this.writer.rollbackTo(this.batchMark);
    this.deps.logger.warn({ pending: this.pending }, 'batch aborted');
    this.pending = 0;
    this.batchMark = undefined;
  }

  private emitDurability(): void {
    this.events.emit('durability', this.durability());
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('STORE_CLOSED', 'the chain store is closed');
  }
}
