/**
 * The node's composition root (one per process). Construction order, and why:
 *   1. chain service: the datadir's only writer; opening it runs migrations and reconcile, so it goes first
 *   2. read-only store handle: every RPC read goes through it (its own WAL snapshot, never behind the writer)
 *   3. tx pool, validated against the head state read through (2)
 *   4. RPC execution pool: built here, its threads started once (5) listens (they open their own read-only handles
 *      and warm up); calls made before one is ready wait in its queue
 *   5. RPC server: needs (2), (3) and (4); starts listening last among the serving parts
 *   6. producer (with --mine): needs everything above; announces blocks only after they are durable
 *   7. loop-lag probe and watchdog: watch the finished main loop
 * The lifecycle closes them in reverse order.
 */
import { forkAt, isForkActive } from '../chain/forks.ts';
import { expectedBaseFee } from '../exec/header/baseFee.ts';
import { createMetrics } from '../metrics/index.ts';
import { createRpcServer, defaultRpcOptions, type RpcServer } from '../rpc/index.ts';
import type { DevStateEdit } from '../rpc/interface.ts';
import { Lifecycle } from '../runtime/lifecycle.ts';
import { LoopLagProbe } from '../runtime/loopLag.ts';
import { Watchdog } from '../runtime/watchdog/index.ts';
import { logSlowBlock } from '../runtime/slowBlock.ts';
import { HistoricalState } from '../state/store/history.ts';
import { openReadOnly, type ReadOnlyChainStore } from '../store/index.ts';
import { TxPool } from '../txpool/index.ts';
import { CLIENT_IDENTITY } from '../version.ts';
import type { HeadUpdate } from '../chainService/chainService.ts';
import type { DroppedBlock, OrphanedTx } from '../exec/import/chainImporter.ts';
import type { ChainThread } from '../chainService/chainThread.ts';
import { chainBatch, startChainThread } from './chainStart.ts';
import type { NodeDeps, NodeOptions } from './options.ts';
import { EthstatsFeed } from './ethstatsFeed.ts';
import { Producer, type SealAttempt } from './producer.ts';
import { DevControls, type DevNodeHandle } from './devControls.ts';
import { DevAccounts } from '../rpcBackend/devAccounts.ts';
import { devAccounts } from './dev/devChain.ts';
import { warmRpcPath } from './dev/warmRpc.ts';
import { hexToBytes } from '../primitives/hex.ts';
import { addressFromPrivateKey } from '../primitives/secp256k1/index.ts';
import { roundPhases } from '../chainService/produce/phases.ts';
import { StoreChainView, type ChainHead } from '../rpcBackend/chainView.ts';
import { headerData } from '../rpcBackend/convert.ts';
import { ChainEvents } from '../rpcBackend/events.ts';
import { StoreStateView } from '../rpcBackend/stateView.ts';
import { StoreTraceView } from '../rpcBackend/traceView.ts';
import { StoreSimulateView } from '../rpcBackend/simulateView.ts';
import { pendingBlockContext, poolStateAt } from '../rpcBackend/poolContext.ts';
import { NodeTxPoolView } from '../rpcBackend/txPoolView.ts';
import { ethereumHeaderCodec, headerHash, type Header } from '../chain/header/index.ts';
import type { Follower, StoreServingSource } from '../sync/index.ts';
import { blockServing, createFollower } from './follow.ts';
import { forwardingTxPool, sharingTxPool } from '../rpcBackend/forwardingTxPool.ts';
import { decodeRlp } from '../primitives/rlp.ts';
import { bytesToHex, equalBytes } from '../primitives/hex.ts';
import { decodeTransaction, type Transaction } from '../chain/transaction/index.ts';
import { XoneError } from '../errors.ts';
import type { LogData, ReceiptData } from '../rpc/encode/types.ts';

import { shedExpensiveCalls } from './loadShedding.ts';
import { blockMainLoopForTest, rpcInLoopForTest } from './testHooks.ts';
import {
  pooledExecutionView,
  pooledLogs,
  pooledProofs,
  pooledSimulateView,
  pooledTraceView,
  RpcExecutionPool,
  type RpcExecutor,
  type RpcPoolOptions,
} from '../rpcPool/index.ts';

/** Dropped transactions re-admitted per event-loop turn after a reorg (see `readmitDropped`). */
const REORG_READMIT_SLICE = 256;
/** Lets the event loop run (timers, RPC requests) between two slices of a reorg's main-thread work. */
const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/**
 * WAL size past which the pinned read snapshot is settled (see `pinView`): half the writer's auto-checkpoint size
 * (4096 pages of 4 KiB), since past that every COMMIT checkpoints while the pin keeps the WAL from starting over (a
 * dev block writes ~260 KB of WAL: at 64 MiB, blocks 60 to 250 of a fresh dev chain each paid two more fsyncs).
 */
const WAL_SETTLE_BYTES = 8 * 1024 * 1024;
/**
 * The WAL's size is asked at most this often (an async stat and its promises were ~2 % of an automine send's main-thread
 * CPU, one per block): at the fastest automine rate (~3 ms a block, ~260 KB each) the WAL grows ~2 MB meanwhile, well
 * under the 8 MiB between WAL_SETTLE_BYTES and the writer's auto-checkpoint size.
 */
const WAL_CHECK_MS = 25;
/**
 * A new head with fewer transactions is not pre-encoded into the RPC's encoding cache: a reader asking for it encodes
 * and caches it on request at about the cost priming pays for every block, and an automine test flow (one
 * transaction a block, the next request its receipt, which that cache does not serve) never asks. Priming was 3.2 %
 * of the main thread's samples per automine send (perf, session 10; issue #15). Larger blocks are still primed: one
 * of 1,428 transfers would hold its first reader for tens of milliseconds.
 */
const PRIME_MIN_TXS = 4;

export class XoneNode {
  private head: ChainHead;
  private settling = false;
  /** When the WAL's size was last asked (`pinView`). */
  private walCheckedAt = -Infinity;
  /** Set by close(): background work (re-admission slices) stops reading the store. */
  private closing = false;
  follower: Follower | undefined;
  private serving: StoreServingSource | undefined;
  /** Settles once the execution pool has a thread ready (or failed to start, which is logged). */
  private executorWarm: Promise<void> = Promise.resolve();
  /** The dev chain's controls (evm_*, anvil_*), with --dev on a producer. */
  dev: DevControls | undefined;
  accounts: DevAccounts | undefined;

  private constructor(
    readonly options: NodeOptions,
    private readonly deps: Required<Omit<NodeDeps, 'rpcClock'>>,
    readonly lifecycle: Lifecycle,
    readonly chain: ChainThread,
    private readonly reader: ReadOnlyChainStore,
    readonly pool: TxPool,
    readonly events: ChainEvents,
    readonly chainView: StoreChainView,
    head: ChainHead,
  ) {
    this.head = head;
  }

  rpc!: RpcServer;
  producer: Producer | undefined;
  ethstats: EthstatsFeed | undefined;
  url = '';

  static async start(options: NodeOptions, { logger, metrics = createMetrics(), rpcClock }: NodeDeps): Promise<XoneNode> {
    const lifecycle = new Lifecycle({}, { logger });
    // The chain thread opens the store (migrations, reconcile) before anything reads it.
    const started = options.chain ?? startChainThread(options);
    const chain = started.thread;
    await started.ready;
    lifecycle.add('chain', chain);
    try {
      return await XoneNode.assemble(options, { logger, metrics, rpcClock }, lifecycle, chain);
    } catch (err) {
      // What started before the failure (store handle, execution pool, chain thread) is closed, so the process can end.
      await lifecycle.close();
      throw err;
    }
  }

  /** Everything after the chain thread, in construction order (see the top of this file). */
  private static async assemble(
    options: NodeOptions,
    { logger, metrics, rpcClock }: Required<Omit<NodeDeps, 'rpcClock'>> & Pick<NodeDeps, 'rpcClock'>,
    lifecycle: Lifecycle,
    chain: ChainThread,
  ): Promise<XoneNode> {
    const config = options.genesis.config;
    const batch = chainBatch(options);
    const initialHead = await chain.head();
    const reader = lifecycle.add('store-reader', openReadOnly(options.datadir, options.faults ? { faults: options.faults } : {}));
    const ref: { node?: XoneNode } = {};
    const headRef = (): ChainHead => (ref.node as XoneNode).head;
    const headState = () => new HistoricalState(reader, Number(headRef().header.number));
    const pool = new TxPool(
      // Dev mode (like anvil, which has no pool cap) takes bulk loads with automine off: geth's 5,120 global slots
      // would refuse the 20,000 transfers of bench:rpc before the first evm_mine. Nor does anvil cap one sender's
      // queue: a client firing 100 sends at once delivers them out of nonce order (test/e2e), past geth's 64.
      options.dev ? { globalSlots: 100_000, globalQueue: 10_000, accountQueue: 10_000 } : {},
      {
        state: () => poolStateAt(reader, headRef().header.number),
        context: () => pendingBlockContext(config, headRef().header, BigInt(Math.floor(Date.now() / 1000))),
      },
    );
    const events = new ChainEvents();
    // The RPC's slow reads go to the execution pool (eth_getLogs, eth_getProof here; eth_call, traces, simulate below).
    const executor = lifecycle.add('rpc-pool', await startExecutor(options, { logger, metrics }, reader, headRef));
    const pooled = executor instanceof RpcExecutionPool;
    const chainView = new StoreChainView(reader, config, headRef, undefined, pooled ? { getLogsJson: pooledLogs(executor) } : {});
    const node = new XoneNode(options, { logger, metrics }, lifecycle, chain, reader, pool, events, chainView, {
      header: initialHead.header,
      hash: initialHead.hash,
    });
    ref.node = node;
    node.pinView({ header: initialHead.header, hash: initialHead.hash });
    metrics.headNumber.set(Number(node.head.header.number));

    pool.on('pending', (p) => {
      events.pendingTx(p.tx.hash);
      node.producer?.onPendingTransaction();
    });

    if (options.mine) {
      node.producer = new Producer(options.miningMode ?? 'interval', {
        produce: (ts, parentHash) => (parentHash ? node.sealInSlot(parentHash) : node.produceBlock(ts)),
        plan: () => node.planSeal(),
        logger,
      });
    }
    const stateView = new StoreStateView(reader, pooled ? { getProof: pooledProofs(executor) } : {});
    const localPool = new NodeTxPoolView(
      pool,
      (a) => headState().getAccount(a)?.nonce ?? 0n,
      () => node.producer?.stuck(),
      () => node.producer?.automineBlock(),
    );
    const evmTimeoutMs = options.rpc?.evmTimeoutMs ?? defaultRpcOptions.evmTimeoutMs;
    const execView = pooledExecutionView(executor, evmTimeoutMs);
    const gasCap = options.rpc?.gasCap ?? defaultRpcOptions.gasCap;
    const traceLimits = { maxBytes: options.rpc?.traceMaxBytes ?? defaultRpcOptions.traceMaxBytes, gasCap };
    const simulateLimits = { gasCap, timeoutMs: evmTimeoutMs };
    // A follower hands transactions to its peers (the signers) rather than keeping them: it never seals. A signer
    // with peers keeps them (it may seal the next block) and shares each accepted one with its peers.
    const follower = (): Follower => node.follower as Follower;
    const txpool = !options.peers?.length
      ? localPool
      : options.mine
        ? sharingTxPool(localPool, (raw) => follower().broadcastTx(raw))
        : forwardingTxPool(localPool, (raw) => follower().submitTx(raw));
    const serving = blockServing({
      reader,
      chainId: config.chainId,
      submitTx: (raw) => txpool.sendRawTransaction(raw),
      clientVersion: CLIENT_IDENTITY,
    });
    node.serving = serving.source;
    if (options.dev && node.producer) {
      // Node-held dev accounts (anvil's): the dev mnemonic's keys, on the producer only (a follower forwards raw txs).
      const keys = devAccounts().map((a) => hexToBytes(a.privateKey));
      node.accounts = new DevAccounts(
        keys,
        keys.map((k) => addressFromPrivateKey(k)),
        {
          config,
          chain: chainView,
          exec: execView,
          txpool: localPool,
          submit: (tx, sender) => localPool.submit(tx, sender),
          gasCap: options.rpc?.gasCap ?? defaultRpcOptions.gasCap,
        },
      );
      node.dev = new DevControls(node.devHandle(), BigInt(config.clique?.period ?? 0));
    }
    // Created before the RPC server so the server can ask it whether to shed; started last, once the loop is built.
    const watchdog = options.watchdog === false ? undefined : new Watchdog(undefined, { logFormat: options.logFormat ?? 'json' });
    node.rpc = createRpcServer(
      {
        ...options.rpc,
        host: options.http.host,
        port: options.http.port,
        dev: options.dev,
        clientVersion: CLIENT_IDENTITY,
        ...(options.http.corsOrigins ? { corsOrigins: options.http.corsOrigins } : {}),
      },
      {
        chain: chainView,
        state: stateView,
        exec: execView,
        txpool,
        events,
        ...(node.dev ? { dev: node.dev } : {}),
        ...(node.accounts ? { accounts: node.accounts } : {}),
        trace: pooled ? pooledTraceView(executor, traceLimits) : new StoreTraceView(reader, chainView, config, traceLimits),
        simulate: pooled ? pooledSimulateView(executor, simulateLimits) : new StoreSimulateView(reader, config, simulateLimits),
        health: { isSyncing: () => false, headTimestamp: () => node.head.header.timestamp },
        ...(watchdog
          ? {
              shed: shedExpensiveCalls({
                loopLate: () => watchdog.isShedding(),
                ...(pooled ? { poolWaiting: () => executor.stats().queued } : {}),
              }),
            }
          : {}),
        ...(rpcClock ? { now: rpcClock } : {}),
      },
      {
        routes: (app) => {
          app.get('/metrics', async (c) => c.body(await node.scrapeMetrics(), 200, { 'content-type': metrics.register.contentType }));
          serving.mount(app);
        },
      },
    );
    const addr = await node.rpc.start(options.http.early);
    node.warmExecutor(executor);
    lifecycle.add('rpc', node.rpc);
    node.url = `http://${addr.host}:${addr.port}`;
    if (options.ethstats) {
      const source = { chainId: config.chainId, port: addr.port, mining: options.mine, chain: chainView, pool };
      node.ethstats = lifecycle.add('ethstats', await EthstatsFeed.start(options.ethstats, source, logger, node.head.hash));
    }

    if (options.dev && node.producer) {
      // The chain thread runs a throwaway block first (ChainService.warmUp), so the first sends do not pay for
      // compiling the production path; anything sent meanwhile waits behind it in the chain thread's queue.
      // Then the main thread's send path, through its own port (warmRpc.ts); not with a rate limit, whose 127.0.0.1
      // bucket it would spend.
      const warmRpc = node.rpc.options.rateLimit ? undefined : () => warmRpcPath(addr.host, addr.port, config.chainId, () => node.closing);
      chain
        .warmUp()
        .catch((err: unknown) => logger.warn('chain thread warm-up failed', { err: (err as Error).message }))
        .then(warmRpc)
        .catch(() => undefined);
    }
    if (node.producer) {
      node.producer.start();
      lifecycle.add('producer', node.producer);
    }
    if (options.peers?.length) {
      const follower = createFollower(options.peers, {
        chain,
        batch,
        genesisHash: headerHash(options.genesis.genesisHeader),
        chainId: config.chainId,
        logger,
        onDurable: (update, latest) => node.adoptImported(update, latest),
      });
      node.follower = follower;
      lifecycle.add('follower', () => follower.stop());
    }

    // XONE_LOOP_STALL_MS lowers the stall line's threshold (default 100 ms), so a bench reads exact lags, not buckets.
    const stallMs = Number(process.env.XONE_LOOP_STALL_MS);
    const probe = new LoopLagProbe(stallMs > 0 ? { stallMs } : {}, {
      logger,
      metrics: { loopLagMs: metrics.loopLagMs, loopLagSeconds: metrics.loopLagSeconds },
      ...(watchdog ? { heartbeat: watchdog.heartbeat } : {}),
    });
    probe.start();
    lifecycle.add('loop-lag-probe', probe);
    if (watchdog) {
      await watchdog.init();
      lifecycle.add('watchdog', watchdog);
    }
    await node.refreshDurability();
    blockMainLoopForTest(logger, () => watchdog?.isShedding() ?? false);
    // Last: once importing, the chain thread answers other calls (durability above) only between batches.
    node.follower?.start();
    return node;
  }

  /**
   * Starts the pool's warm threads once the RPC server listens: they load at the process's priority, and start-up
   * (answer RPC within 500 ms, issue #5) should not share the cores with them. Calls made meanwhile wait in its queue.
   */
  private warmExecutor(executor: RpcExecutor): void {
    if (!(executor instanceof RpcExecutionPool)) return;
    this.executorWarm = executor
      .init()
      .catch((err: unknown) => this.deps.logger.error('rpc execution pool failed to start', { error: (err as Error).message }));
  }

  /** Resolves once the RPC execution pool has a thread ready (tests time pooled calls from then on). */
  rpcPoolReady(): Promise<void> {
    return this.executorWarm;
  }

  /** The canonical head, as the node serves it. */
  get headNumber(): bigint {
    return this.head.header.number;
  }

  /**
   * Seals and commits one block from the pool, then announces it (producer only). With `devEdits` (dev chain) the block
   * carries those state edits and no transactions, so manual mining keeps its pending transactions pending.
   */
  async produceBlock(timestamp?: bigint, devEdits?: DevStateEdit[], parentHash?: Uint8Array): Promise<void> {
    const parent = this.head.header;
    const config = this.options.genesis.config;
    const settings = this.dev ? this.dev.nextBlock(parent, timestamp) : { timestamp: nextTimestamp(parent, config, timestamp) };
    const ts = settings.timestamp;
    const devHeader = settings.header;
    const next = forkAt(config, Number(parent.number + 1n), Number(ts));
    const baseFee = isForkActive(next, 'London')
      ? (devHeader?.baseFeePerGas ?? expectedBaseFee(parent, forkAt(config, Number(parent.number), Number(parent.timestamp))))
      : undefined;
    const started = performance.now();
    const picked = devEdits ? [] : this.pool.selectForBlock(baseFee, devHeader?.gasLimit ?? parent.gasLimit);
    const selected = performance.now();
    const result = await this.chain.produce({
      txs: picked.map((p) => ({ raw: p.tx.raw, sender: p.sender })),
      timestamp: ts,
      ...(devEdits ? { devEdits } : {}),
      ...(devHeader ? { devHeader } : {}),
      ...(parentHash ? { parentHash } : {}),
    });
    this.dev?.blockSealed(settings, timestamp !== undefined);
    const produced = performance.now();
    for (const hash of result.dropped) this.pool.remove(hash);
    this.chainView.rememberProduced(result.head.hash, result.head.headerRlp, result.block, {
      number: result.head.number,
      td: result.head.td,
    });
    const header = this.serveHead(result.head);
    this.follower?.noteHead({ number: result.head.number, hash: result.head.hash, td: result.head.td });
    const adopted = performance.now();
    const m = this.deps.metrics;
    m.produceBlocks.inc();
    m.produceTxs.inc(result.head.txHashes.length);
    m.produceGas.inc(Number(result.head.gasUsed));
    m.storeBatchSize.observe(1);
    // Publication and the log lines after the caller's answer: an automine send answers once its block is served
    // (readable, the pool's nonces moved), and the receipts read, their encodings, the filters' and subscriptions' events
    // and two JSON writes to stdout would otherwise sit between the seal and that answer. The immediate runs in the
    // event-loop turn that answered, before the loop polls for more requests (the client's receipt request finds the
    // block encoded) and before the next block can be served (its chain-thread reply comes in a later turn).
    setImmediate(() => {
      // A node closing meanwhile may have closed the reader the receipts come from.
      if (!this.closing) {
        const receipts = this.publishHead(result.head, header);
        if (this.options.dev) this.logMinedTransactions(receipts);
      }
      this.deps.logger.info('sealed block', {
        number: Number(result.head.number),
        txs: result.head.txHashes.length,
        gasUsed: Number(result.head.gasUsed),
        ms: Math.round(adopted - started),
        // Where a block's time went: pool selection, the chain thread (its own split in `chain`), serving the new head.
        split: {
          selectMs: Math.round(selected - started),
          chainMs: Math.round(produced - selected),
          adoptMs: Math.round(adopted - produced),
        },
        chain: roundPhases(result.phases),
      });
    });
  }

  /**
   * Interval mining's next attempt on the current head: when our signer may seal it and how long to wait (the slot
   * is `period` after the parent's timestamp, on this node's clock; out of turn adds the engine's random delay).
   */
  async planSeal(): Promise<SealAttempt | undefined> {
    const plan = await this.chain.sealPlan();
    if (!plan.canSeal) return undefined;
    // evm_setIntervalMining's wait runs from the last seal; block timestamps still keep Clique's period apart.
    const chosenMs = this.dev?.nextIntervalWaitMs();
    if (chosenMs !== undefined) return { delayMs: chosenMs, parentHash: plan.parentHash };
    const nowMs = Date.now() + Number(this.dev?.clockOffsetSeconds ?? 0n) * 1000;
    const slotMs = Number(plan.parentTimestamp + BigInt(plan.period)) * 1000;
    return { delayMs: Math.max(0, slotMs - nowMs) + plan.wiggleMs, parentHash: plan.parentHash };
  }

  /** Seals the planned block on `parentHash`; a head that moved meanwhile (a peer's block won the slot) is no error. */
  async sealInSlot(parentHash: Uint8Array): Promise<void> {
    try {
      await this.produceBlock(undefined, undefined, parentHash);
    } catch (err) {
      const code = err instanceof XoneError ? err.code : '';
      if (code !== 'NODE_STALE_PARENT' && code !== 'NODE_CANNOT_SEAL') throw err;
      this.deps.logger.debug('seal skipped', { reason: (err as Error).message });
    }
  }

  /** Dev chain: one line per mined transaction (hash, gas used, status, created contract), as anvil prints them. */
  private logMinedTransactions(receipts: readonly ReceiptData[]): void {
    for (const r of receipts.slice(0, MINED_TX_LINES)) {
      this.deps.logger.info('mined transaction', {
        hash: bytesToHex(r.transactionHash),
        block: Number(r.blockNumber),
        gasUsed: Number(r.gasUsed),
        status: r.status === 1 ? 'success' : 'reverted',
        ...(r.contractAddress ? { contract: bytesToHex(r.contractAddress) } : {}),
      });
    }
    if (receipts.length > MINED_TX_LINES)
      this.deps.logger.info('mined transactions not listed', { count: receipts.length - MINED_TX_LINES });
  }

  /**
   * Serves a block imported from a peer once it is durable (the follower's `onDurable`, which waits for it before the
   * next block), counting it as imported. The first block of a reorg waits for its removed logs (`removedLogs`).
   */
  async adoptImported(update: HeadUpdate, latest = true): Promise<void> {
    const removed = update.reorg ? await this.removedLogs(update.reorg.dropped) : [];
    if (this.closing) return;
    const m = this.deps.metrics;
    m.importBlocks.inc();
    m.importTxs.inc(update.txHashes.length);
    m.importGas.inc(Number(update.gasUsed));
    this.adopt(update, latest, removed);
    // A peer's block moved our head: a signer plans its next seal on it.
    this.producer?.onNewHead();
  }

  /**
   * Moves every main-thread read (RPC, pool, block serving) to the latest committed state and serves its head: one
   * pinned snapshot (`ReadOnlyChainStore.pin`), so a head and the reads about it never disagree, even while the chain
   * thread commits a reorg. `known` is the head just adopted (no header read when the snapshot's head is that block).
   */
  private pinView(known: ChainHead): void {
    const marker = this.reader.pin();
    if (!marker || equalBytes(marker.hash, known.hash)) this.head = known;
    else {
      const row = this.reader.getHeaderByHash(marker.hash);
      this.head = row ? { header: ethereumHeaderCodec.decode(decodeRlp(row.headerRlp), row.headerRlp), hash: row.hash } : known;
    }
    // A pin held at every moment keeps the WAL from starting over: past a size, let the writer checkpoint and move
    // the pin to a snapshot of the checkpointed file (ReadOnlyChainStore.settle).
    const now = performance.now();
    if (!this.settling && now - this.walCheckedAt >= WAL_CHECK_MS) {
      this.settling = true;
      this.walCheckedAt = now;
      void this.reader
        .walBytes()
        .then(async (bytes) => {
          if (bytes <= WAL_SETTLE_BYTES || this.closing) return;
          await this.chain.checkpoint();
          this.reader.settle(this.head.hash);
        })
        .catch(() => undefined)
        .finally(() => (this.settling = false));
    }
  }

  /**
   * Makes `update` the served head: pool nonces, metrics, RPC events (filters, subscriptions). `prime` false skips the
   * RPC encoding cache (a follower's block that a later block of the same batch replaces as head at once). A reorg's
   * first block comes with the dropped blocks' logs (`removedLogs`), published before its own.
   */
  private adopt(update: HeadUpdate, prime = true, removedLogs: readonly LogData[] = []): void {
    this.publishHead(update, this.serveHead(update), prime, removedLogs);
  }

  /**
   * The first half of `adopt`: every main-thread read (RPC, pool) moves to `update` and the pool's nonces with it.
   * Returns the decoded header for `publishHead`.
   */
  private serveHead(update: HeadUpdate): Header {
    const header = ethereumHeaderCodec.decode(decodeRlp(update.headerRlp), update.headerRlp);
    const previous = this.head;
    this.pinView({ header, hash: update.hash });
    if (update.reorg) this.adoptReorg(update.reorg, previous);
    this.pool.onNewHead();
    this.deps.metrics.headNumber.set(Number(header.number));
    return header;
  }

  /**
   * The second half of `adopt`: the slow-block line, the commit metrics, the RPC encoding cache, the filters' and
   * subscriptions' events, peers and ethstats. Returns the block's receipts (empty when none were read).
   */
  private publishHead(update: HeadUpdate, header: Header, prime = true, removedLogs: readonly LogData[] = []): ReceiptData[] {
    const t = update.timings;
    logSlowBlock(
      this.deps.logger,
      {
        number: header.number,
        hash: update.hash,
        gasUsed: header.gasUsed,
        txCount: update.txHashes.length,
        timing: {
          executionMs: t.executeMs,
          stateReadMs: 0,
          stateHashMs: t.rootMs,
          commitMs: t.commitMs,
          totalMs: t.recoverMs + t.executeMs + t.rootMs + t.commitMs,
          recoveryMs: t.recoverMs,
        },
      },
      this.options.logSlowBlockMs,
    );
    this.deps.metrics.storeCommitSeconds.observe(t.commitMs / 1000);
    // A durable update needs no question to the chain thread (one more wake-up of it per produced block).
    if (update.durable) this.deps.metrics.storeDurable.set(1);
    else void this.refreshDurability();
    // Receipts feed the log filters and the encoding cache; a block with an empty bloom has no logs to publish, so a
    // follower's catch-up (prime false) reads none for it.
    const wantReceipts = update.txHashes.length > 0 && (prime || header.logsBloom.some((b) => b !== 0));
    const receipts = wantReceipts ? (this.chainView.getReceipts(update.hash) ?? []) : [];
    // The new head is what clients ask for next: encode a large one (both forms) and its receipts now, off their
    // request path.
    const block =
      prime && update.txHashes.length >= PRIME_MIN_TXS && (this.rpc as RpcServer | undefined) && this.chainView.getBlockByHash(update.hash);
    if (block) this.rpc.prime(block, receipts);
    // After a reorg the dropped blocks' logs come first, marked removed (geth's order: removed, then the new chain's).
    this.events.newHead(headerData(header, update.hash), [...removedLogs, ...receipts.flatMap((r) => r.logs)]);
    // With its total difficulty: a follower compares heads by weight, and by height only for a head without one.
    this.serving?.announce({ number: header.number, hash: update.hash, td: update.td });
    this.ethstats?.onHead(update.hash);
    return receipts;
  }

  /**
   * The dropped blocks' logs marked `removed: true` for subscriptions and filters, lowest block first: read before the
   * reorg's first block is adopted, one dropped block's receipts per event-loop turn (64 blocks of 200 transactions
   * decoded at once held the loop for 200 ms). The blocks stay readable by hash once they left the chain.
   */
  private async removedLogs(dropped: readonly DroppedBlock[]): Promise<LogData[]> {
    const removed: LogData[] = [];
    for (const d of dropped) {
      if (!d.hasLogs) continue;
      await yieldToLoop();
      if (this.closing) break;
      for (const r of this.chainView.getReceipts(d.hash) ?? []) for (const log of r.logs) removed.push({ ...log, removed: true });
    }
    return removed;
  }

  /**
   * The node side of a reorg the chain thread committed (the new branch's first block is being adopted): one warn
   * line, and the dropped blocks' transactions back in the pool unless the new branch holds them (in the background).
   */
  private adoptReorg(reorg: NonNullable<HeadUpdate['reorg']>, previous: ChainHead): void {
    const m = this.deps.metrics;
    m.reorgs.inc();
    m.reorgDepth.observe(reorg.dropped.length);
    this.deps.logger.warn('Reorg', {
      ancestor: Number(reorg.ancestor.number),
      dropped: reorg.dropped.length,
      from: { number: Number(previous.header.number), hash: bytesToHex(previous.hash) },
      to: { number: Number(this.head.header.number), hash: bytesToHex(this.head.hash) },
    });
    this.pool.onNewHead();
    void this.readmitDropped(reorg.orphaned).catch((err: unknown) =>
      this.deps.logger.error('Re-admitting dropped transactions failed', { error: (err as Error).message }),
    );
  }

  /**
   * Puts a reorg's orphaned transactions (those of dropped blocks whose nonce the new branch left unused; the chain
   * thread filtered out the rest) back in the pool, each checked against the then served chain, from the next
   * event-loop turn on, at most REORG_READMIT_SLICE per turn (a 64-block reorg of full blocks can orphan thousands).
   */
  private async readmitDropped(orphaned: readonly OrphanedTx[]): Promise<void> {
    for (const [i, { raw, sender }] of orphaned.entries()) {
      if (i % REORG_READMIT_SLICE === 0) {
        await yieldToLoop();
        if (this.closing) return;
      }
      this.readmitOne(decodeTransaction(raw), sender);
    }
  }

  private readmitOne(tx: Transaction, sender: Uint8Array): void {
    // Mined on a block adopted since the reorg: nothing to re-admit (its receipt is there).
    if (this.reader.getTxLocation(tx.hash)) return;
    try {
      this.pool.add(tx, sender);
      // The peers that sealed the winning branch never saw it: hand it to them again.
      this.follower?.broadcastTx(tx.raw);
    } catch {
      // Already pending, or no longer valid on the served chain: dropped, as geth does.
    }
  }

  /** `/metrics` body: pool sizes are read at scrape time (they change on every add), the rest is kept current. */
  async scrapeMetrics(): Promise<string> {
    const { pending, queued } = this.pool.status();
    this.deps.metrics.txpoolPending.set(pending);
    this.deps.metrics.txpoolQueued.set(queued);
    return this.deps.metrics.register.metrics();
  }

  /** Asks the chain thread for the store's durability (after each head, so a scrape never waits on the chain thread). */
  private async refreshDurability(): Promise<void> {
    try {
      const d = await this.chain.durability();
      this.deps.metrics.storeDurable.set(d.kind === 'Durable' ? 1 : 0);
    } catch {
      // The chain thread is closing: the last value stays.
    }
  }

  /** What the dev controls may touch. */
  private devHandle(): DevNodeHandle {
    return {
      producer: this.producer,
      chain: this.chain,
      pool: this.pool,
      reader: this.reader,
      accounts: this.accounts,
      head: () => this.head.header,
      reloadHead: async () => {
        const h = await this.chain.head();
        this.pinView({ header: h.header, hash: h.hash });
        this.pool.onNewHead();
      },
      produceBlock: (timestamp, edits) => this.produceBlock(timestamp, edits),
    };
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.lifecycle.close();
  }
}

/** A non-dev producer's next timestamp: now, but at least Clique's period after the parent. */
function nextTimestamp(parent: { timestamp: bigint }, config: NodeOptions['genesis']['config'], requested?: bigint): bigint {
  const period = BigInt(config.clique?.period ?? 0);
  const min = parent.timestamp + (period > 0n ? period : 1n);
  const ts = requested ?? BigInt(Math.floor(Date.now() / 1000));
  return ts < min ? min : ts;
}

/** Most per-transaction lines one dev block prints (a full block would print 1,428). */
const MINED_TX_LINES = 20;

/**
 * The executor of the RPC's expensive reads: the execution pool (its threads start once the RPC server listens), or
 * the main thread under XONE_TEST_RPC_IN_LOOP (bench:rpc-isolation's in-loop comparison).
 */
async function startExecutor(
  options: NodeOptions,
  deps: Required<Omit<NodeDeps, 'rpcClock'>>,
  reader: ReadOnlyChainStore,
  head: () => ChainHead,
): Promise<RpcExecutor> {
  const config = options.genesis.config;
  if (rpcInLoopForTest()) {
    // Loaded only here: the in-thread executor brings the EVM onto the main thread, which the pool keeps off it.
    const { InThreadExecutor } = await import('../rpcPool/inThread.ts');
    return new InThreadExecutor(reader, config, new StoreChainView(reader, config, head), new StoreStateView(reader));
  }
  const setup = { datadir: options.datadir, config, ...(options.faults ? { faults: options.faults } : {}) };
  return new RpcExecutionPool(
    setup,
    { ...followerPoolDefaults(options), ...options.rpcPool },
    { logger: deps.logger, metrics: deps.metrics },
  );
}

/**
 * A follower (peers, no sealing) keeps no execution thread warm: its threads start with the first expensive call and
 * stop after the pool's idle time. Each warm thread is an isolate and a SQLite connection (14 MB of V8 heap plus its
 * malloc arena and page cache in a follower that serves only cheap calls), and a follower's RSS target is 150 MB
 * (issue #18). The price is the first expensive call's wait for a thread to load (~0.2 s on a quiet host).
 */
function followerPoolDefaults(options: NodeOptions): Partial<RpcPoolOptions> {
  return options.peers?.length && !options.mine ? { warm: 0 } : {};
}
