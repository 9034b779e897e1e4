/**
 * Polling filters (eth_newFilter / newBlockFilter / newPendingTransactionFilter / getFilterChanges): each keeps
 * what arrived since its last poll, bounded, and is dropped when not polled for `filterTimeoutMs` (geth: 5 min).
 */
import { type FilterCriteria } from './callParams.ts';
import { type HeaderData, type LogData } from './encode/types.ts';
import { encodeLog } from './encode/receipt.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { RpcError } from './errors.ts';
import { logMatches } from './logMatch.ts';
import { newId } from './ids.ts';

/** Most items a filter holds between polls; older ones are dropped first. */
const MAX_PENDING_ITEMS = 10_000;

export type Filter =
  | { kind: 'block'; lastPoll: number; items: string[] }
  | { kind: 'pendingTx'; lastPoll: number; items: string[] }
  | { kind: 'logs'; lastPoll: number; items: Record<string, unknown>[]; criteria: FilterCriteria };

export class FilterManager {
  private readonly filters = new Map<string, Filter>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly maxFilters: number,
    private readonly now: () => number,
  ) {}

  /** Starts the expiry sweep (unref'd: it never keeps the process alive). */
  start(): void {
    this.sweeper = setInterval(() => this.sweep(), Math.min(this.timeoutMs, 30_000));
    this.sweeper.unref();
  }

  stop(): void {
    clearInterval(this.sweeper);
    this.filters.clear();
  }

  /** Removes filters not polled within the timeout. */
  sweep(): void {
    const cutoff = this.now() - this.timeoutMs;
    for (const [id, f] of this.filters) if (f.lastPoll < cutoff) this.filters.delete(id);
  }

  install(filter: Filter): string {
    this.sweep();
    if (this.filters.size >= this.maxFilters) throw new RpcError('LIMIT_EXCEEDED', 'limit exceeded: too many filters');
    const id = newId();
    this.filters.set(id, filter);
    return id;
  }

  get(id: string): Filter {
    const f = this.filters.get(id);
    if (!f || f.lastPoll < this.now() - this.timeoutMs) {
      this.filters.delete(id);
      throw new RpcError('SERVER_ERROR', 'filter not found');
    }
    return f;
  }

  /** Returns and clears what arrived since the last poll. */
  poll(id: string): unknown[] {
    const f = this.get(id);
    f.lastPoll = this.now();
    const items = f.items;
    f.items = [];
    return items;
  }

  uninstall(id: string): boolean {
    return this.filters.delete(id);
  }

  get size(): number {
    return this.filters.size;
  }

  onNewHead(header: HeaderData, logs: LogData[]): void {
    let hashHex: string | undefined;
    let encoded: Record<string, unknown>[] | undefined;
    for (const f of this.filters.values()) {
      if (f.kind === 'block') push(f.items, (hashHex ??= bytesToHex(header.hash)));
      else if (f.kind === 'logs' && f.criteria.blockHash === undefined) {
        encoded ??= logs.map(encodeLog);
        for (let i = 0; i < logs.length; i++) if (logMatches(logs[i], f.criteria)) push(f.items, encoded[i]);
      }
    }
  }

  onPendingTx(hash: Uint8Array): void {
    let hex: string | undefined;
    for (const f of this.filters.values()) if (f.kind === 'pendingTx') push(f.items, (hex ??= bytesToHex(hash)));
  }
}

function push<T>(items: T[], item: T): void {
  if (items.length >= MAX_PENDING_ITEMS) items.shift();
  items.push(item);
}
