/**
 * The head state as admission reads it: one reader per head and each sender's nonce and balance read once per head.
 * Admission asks for both on every transaction; building a reader and querying the store for each of the 100 calls of
 * an eth_sendRawTransaction batch cost more than the sender recovery (CPU profile of bench:rpc's submission). The
 * head's state cannot change without a new head, and the pool's `onNewHead` drops this cache.
 */
import type { PoolStateReader } from './types.ts';

interface Entry {
  nonce?: bigint;
  balance?: bigint;
}

export class HeadStateCache implements PoolStateReader {
  private reader: PoolStateReader | undefined;
  private readonly accounts = new Map<string, Entry>();

  constructor(private readonly open: () => PoolStateReader) {}

  /** Forgets everything read (a new head). */
  reset(): void {
    this.reader = undefined;
    this.accounts.clear();
  }

  nonce(address: Uint8Array, key = Buffer.from(address).toString('hex')): bigint {
    const entry = this.entry(key);
    entry.nonce ??= this.head().nonce(address);
    return entry.nonce;
  }

  balance(address: Uint8Array, key = Buffer.from(address).toString('hex')): bigint {
    const entry = this.entry(key);
    entry.balance ??= this.head().balance(address);
    return entry.balance;
  }

  private head(): PoolStateReader {
    this.reader ??= this.open();
    return this.reader;
  }

  private entry(key: string): Entry {
    let entry = this.accounts.get(key);
    if (entry === undefined) {
      entry = {};
      this.accounts.set(key, entry);
    }
    return entry;
  }
}
