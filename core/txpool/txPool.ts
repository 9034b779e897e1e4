/**
 * The transaction pool: validates like geth's legacypool, keeps each account's transactions by nonce, splits them
 * into pending (executable: a gap-free run from the account's state nonce) and queued (future nonces), replaces only
 * with a fee bump, enforces per-account and global limits, and hands the producer a block's worth in tip order.
 */
import { EventEmitter } from 'node:events';
import { recoverSender, validateTransactionStatic, type Transaction } from '../chain/transaction/index.ts';
import { toChecksumAddress } from '../primitives/address.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { TxPoolError } from './errors.ts';
import { HeadStateCache } from './headState.ts';
import { defaultTxPoolOptions, type TxPoolOptions } from './options.ts';
import { selectForBlock } from './selection.ts';
import type { PoolChainContext, PooledTransaction, PoolStateReader, TxPoolStatus } from './types.ts';

export interface TxPoolDeps {
  /** State of the current head: opened at most once per head (the pool caches reads until `onNewHead`). */
  state: () => PoolStateReader;
  /** Rules of the pending block. */
  context: () => PoolChainContext;
  /** Sender recovery (the default recovers in this thread). */
  recover?: (tx: Transaction) => Uint8Array;
  now?: () => number;
}

interface Account {
  /** All of the account's transactions by nonce. */
  byNonce: Map<bigint, PooledTransaction>;
  /** The account's nonce in head state. */
  stateNonce: bigint;
  /** Number of executable transactions: nonces stateNonce .. stateNonce + pending - 1 are all present. */
  pending: number;
}

export interface TxPoolEvents {
  /** A transaction became pending (executable). */
  pending: [PooledTransaction];
}

export class TxPool extends EventEmitter<TxPoolEvents> {
  private readonly options: TxPoolOptions;
  private readonly accounts = new Map<string, Account>();
  private readonly byHash = new Map<string, PooledTransaction>();
  private pendingCount = 0;
  private arrivals = 0;
  private readonly headState: HeadStateCache;

  constructor(
    options: Partial<TxPoolOptions>,
    private readonly deps: TxPoolDeps,
  ) {
    super();
    this.options = { ...defaultTxPoolOptions, ...options };
    this.headState = new HeadStateCache(() => this.deps.state());
  }

  /** Validates and adds a transaction; resolves to where it went. Throws `TxPoolError` or `TxError`. */
  add(tx: Transaction, knownSender?: Uint8Array): { hash: Uint8Array; status: 'pending' | 'queued'; replaced?: Uint8Array } {
    const hashHex = bytesToHex(tx.hash);
    if (this.byHash.has(hashHex)) throw new TxPoolError('ALREADY_KNOWN', 'already known', { hash: hashHex });
    const ctx = this.deps.context();
    if (tx.raw.length > this.options.maxTxSize) {
      throw new TxPoolError('OVERSIZED_DATA', `oversized data: transaction size ${tx.raw.length}, limit ${this.options.maxTxSize}`);
    }
    validateTransactionStatic(tx, { fork: ctx.fork, chainId: ctx.chainId });
    if (tx.gasLimit > ctx.blockGasLimit) throw new TxPoolError('GAS_LIMIT', 'exceeds block gas limit', { gas: tx.gasLimit.toString() });
    if (tx.maxFeePerGas < this.options.priceLimit) throw new TxPoolError('UNDERPRICED', 'transaction underpriced');
    const sender = knownSender ?? (this.deps.recover ?? recoverSender)(tx);
    const senderHex = bytesToHex(sender);
    const state = this.headState;
    // The account enters the map only once the transaction is accepted: a refused one must leave no empty entry.
    const known = this.accounts.get(senderHex);
    const account: Account = known ?? { byNonce: new Map(), stateNonce: state.nonce(sender, senderHex), pending: 0 };
    if (tx.nonce < account.stateNonce) {
      // geth prints the address as common.Address.Hex(): EIP-55 checksummed.
      throw new TxPoolError(
        'NONCE_TOO_LOW',
        `nonce too low: address ${toChecksumAddress(sender)}, tx: ${tx.nonce} state: ${account.stateNonce}`,
      );
    }
    const balance = state.balance(sender, senderHex);
    const cost = tx.gasLimit * tx.maxFeePerGas + tx.value;
    if (balance < cost) {
      throw new TxPoolError(
        'INSUFFICIENT_FUNDS',
        `insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`,
      );
    }

    const existing = account.byNonce.get(tx.nonce);
    if (existing) this.checkReplacement(existing.tx, tx);
    else this.checkLimits(account, tx);

    const pooled: PooledTransaction = {
      tx,
      sender,
      senderHex,
      hashHex,
      addedAt: this.arrivals++,
      addedAtMs: (this.deps.now ?? Date.now)(),
    };
    if (existing) this.byHash.delete(existing.hashHex);
    if (!known) this.accounts.set(senderHex, account);
    account.byNonce.set(tx.nonce, pooled);
    this.byHash.set(hashHex, pooled);
    if (!existing) this.promote(account);
    const isPending = tx.nonce < account.stateNonce + BigInt(account.pending);
    // A replaced executable transaction is announced again; new ones are announced by promote().
    if (existing && isPending) this.emit('pending', pooled);
    return { hash: tx.hash, status: isPending ? 'pending' : 'queued', ...(existing ? { replaced: existing.tx.hash } : {}) };
  }

  get(hash: Uint8Array): PooledTransaction | undefined {
    return this.byHash.get(bytesToHex(hash));
  }

  /** The next nonce for `address` counting its pending transactions (eth_getTransactionCount "pending"). */
  pendingNonce(address: Uint8Array, stateNonce: bigint): bigint {
    const account = this.accounts.get(bytesToHex(address));
    if (!account) return stateNonce;
    return account.stateNonce + BigInt(account.pending);
  }

  status(): TxPoolStatus {
    return { pending: this.pendingCount, queued: this.byHash.size - this.pendingCount };
  }

  /** Every transaction by sender, split into pending and queued (txpool_content). */
  content(): Map<string, { pending: PooledTransaction[]; queued: PooledTransaction[] }> {
    const out = new Map<string, { pending: PooledTransaction[]; queued: PooledTransaction[] }>();
    for (const [sender, account] of this.accounts) {
      const pendingEnd = account.stateNonce + BigInt(account.pending);
      const entry = { pending: [] as PooledTransaction[], queued: [] as PooledTransaction[] };
      for (const p of [...account.byNonce.values()].sort((a, b) => (a.tx.nonce < b.tx.nonce ? -1 : 1))) {
        (p.tx.nonce < pendingEnd ? entry.pending : entry.queued).push(p);
      }
      out.set(sender, entry);
    }
    return out;
  }

  /** Executable transactions ordered for a block with `baseFee` and `gasLimit`. */
  selectForBlock(baseFee: bigint | undefined, gasLimit: bigint): PooledTransaction[] {
    return selectForBlock(this.executableRuns(), baseFee, gasLimit);
  }

  /**
   * Re-reads account nonces after a new head: drops what the block included (or made stale), promotes queued
   * transactions that became executable, and expires queued ones past their lifetime. An empty pool opens no state
   * reader (a follower adopting a batch of blocks calls this once per block).
   */
  onNewHead(given?: PoolStateReader): void {
    this.headState.reset();
    if (this.accounts.size === 0) return;
    const state = given ?? this.deps.state();
    const now = (this.deps.now ?? Date.now)();
    for (const [senderHex, account] of this.accounts) {
      const sample = account.byNonce.values().next().value as PooledTransaction;
      const announcedEnd = account.stateNonce + BigInt(account.pending);
      const previousNonce = account.stateNonce;
      account.stateNonce = state.nonce(sample.sender);
      if (account.byNonce.size === account.pending && account.stateNonce >= previousNonce) {
        this.advance(account, previousNonce, announcedEnd);
        if (account.byNonce.size === 0) this.accounts.delete(senderHex);
        continue;
      }
      for (const [nonce, p] of account.byNonce) {
        const stale = nonce < account.stateNonce;
        const expired = !stale && nonce >= account.stateNonce + BigInt(account.pending) && now - p.addedAtMs > this.options.lifetimeMs;
        if (stale || expired) {
          account.byNonce.delete(nonce);
          this.byHash.delete(p.hashHex);
        }
      }
      this.pendingCount -= account.pending;
      account.pending = 0;
      if (account.byNonce.size === 0) {
        this.accounts.delete(senderHex);
        continue;
      }
      this.promote(account, announcedEnd);
    }
  }

  /**
   * `onNewHead` for an account with no queued transactions whose nonce moved forward (the usual case: a block mined
   * some of its run): drops only the mined nonces, so a head costs O(mined), not O(pool). Nothing can expire (every
   * entry is executable) and nothing new becomes executable, so the outcome equals the full rescan.
   */
  private advance(account: Account, previousNonce: bigint, end: bigint): void {
    const stop = account.stateNonce < end ? account.stateNonce : end;
    for (let n = previousNonce; n < stop; n++) {
      const p = account.byNonce.get(n);
      if (p === undefined) continue;
      account.byNonce.delete(n);
      this.byHash.delete(p.hashHex);
    }
    const left = account.stateNonce < end ? Number(end - account.stateNonce) : 0;
    this.pendingCount += left - account.pending;
    account.pending = left;
  }

  /** Drops every transaction (the dev chain's anvil_reset). */
  clear(): void {
    this.accounts.clear();
    this.byHash.clear();
    this.pendingCount = 0;
    this.headState.reset();
  }

  /** Removes a transaction (e.g. it was found invalid while building a block). */
  remove(hash: Uint8Array): void {
    const p = this.byHash.get(bytesToHex(hash));
    if (!p) return;
    const account = this.accounts.get(p.senderHex) as Account;
    account.byNonce.delete(p.tx.nonce);
    this.byHash.delete(bytesToHex(hash));
    // Everything after a removed executable transaction is no longer executable.
    const end = account.stateNonce + BigInt(account.pending);
    if (p.tx.nonce < end) {
      const kept = Number(p.tx.nonce - account.stateNonce);
      this.pendingCount -= account.pending - kept;
      account.pending = kept;
    }
    if (account.byNonce.size === 0) this.accounts.delete(p.senderHex);
  }

  private *executableRuns(): Generator<PooledTransaction[]> {
    for (const account of this.accounts.values()) {
      if (account.pending === 0) continue;
      const run: PooledTransaction[] = [];
      for (let i = 0n; i < BigInt(account.pending); i++) run.push(account.byNonce.get(account.stateNonce + i) as PooledTransaction);
      yield run;
    }
  }

  /** Extends the account's executable run over consecutive nonces now present. */
  private promote(account: Account, announceFrom = 0n): void {
    let next = account.stateNonce + BigInt(account.pending);
    while (account.byNonce.has(next)) {
      account.pending++;
      this.pendingCount++;
      if (next >= announceFrom) this.emit('pending', account.byNonce.get(next) as PooledTransaction);
      next++;
    }
  }

  private checkReplacement(old: Transaction, next: Transaction): void {
    const bump = 100n + this.options.priceBump;
    const feeOk = next.maxFeePerGas * 100n >= old.maxFeePerGas * bump;
    const tipOk = next.maxPriorityFeePerGas * 100n >= old.maxPriorityFeePerGas * bump;
    if (!feeOk || !tipOk) throw new TxPoolError('REPLACEMENT_UNDERPRICED', 'replacement transaction underpriced');
  }

  private checkLimits(account: Account, tx: Transaction): void {
    const executable = tx.nonce === account.stateNonce + BigInt(account.pending);
    const queuedHere = account.byNonce.size - account.pending;
    if (!executable && queuedHere >= this.options.accountQueue) {
      throw new TxPoolError('ACCOUNT_LIMIT', 'account limit exceeded: too many queued transactions for this sender');
    }
    const queuedAll = this.byHash.size - this.pendingCount;
    if (executable ? this.pendingCount >= this.options.globalSlots : queuedAll >= this.options.globalQueue) {
      throw new TxPoolError('POOL_FULL', 'txpool is full');
    }
  }
}
