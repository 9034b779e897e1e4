/**
 * Data types the store accepts and returns. The store never decodes blocks: callers hand it raw RLP plus the few
 * fields it indexes, so it does not depend on the chain codecs.
 */

/** One log as the log index needs it: who emitted it, its topics, and where it sits. */
export interface LogIndexEntry {
  /** 20-byte emitter address. */
  address: Uint8Array;
  /** 0 to 4 topics of 32 bytes. */
  topics: Uint8Array[];
  /** Index of the transaction in the block. */
  txIndex: number;
  /** Index of the log in the block (across all its transactions). */
  logIndex: number;
}

/** A block as the store persists it. */
export interface BlockRecord {
  number: number;
  /** 32-byte block hash (keccak of the header RLP; the store does not recompute it). */
  hash: Uint8Array;
  /** 32-byte parent hash; must equal the canonical hash at `number - 1` (genesis: anything). */
  parentHash: Uint8Array;
  /** Raw header RLP, kept in SQLite. */
  headerRlp: Uint8Array;
  /** Raw body RLP (transactions, ommers, withdrawals), kept in a segment record. */
  bodyRlp: Uint8Array;
  /** Raw receipts RLP, kept in a segment record. */
  receiptsRlp: Uint8Array;
  /** 32-byte transaction hashes in block order; entry i is the transaction at index i. */
  txHashes: Uint8Array[];
  /** Every log of the block, for eth_getLogs. */
  logs: LogIndexEntry[];
  /** The 20-byte sender of each transaction in block order, when known (kept so serving never recovers them). */
  senders?: readonly Uint8Array[];
  /** Total difficulty (sum of difficulties from genesis), when the caller knows it. */
  td?: bigint;
}

/** Whether everything the store accepted is durable. */
export type Durability = { kind: 'Durable' } | { kind: 'Degraded'; reason: 'BATCH'; pending: number };

/** A stored block's summary row. */
export interface StoredHeader {
  number: number;
  hash: Uint8Array;
  parentHash: Uint8Array;
  headerRlp: Uint8Array;
}

/** Where a transaction sits on the canonical chain. */
export interface TxLocation {
  blockNumber: number;
  blockHash: Uint8Array;
  txIndex: number;
}

/** A head marker: the block it points at. */
export interface HeadMarker {
  number: number;
  hash: Uint8Array;
}

/** Names of head markers the store keeps. `head` moves with every put/unwind; the others are set by the caller. */
export type HeadName = 'head' | 'safe' | 'finalized';

/** eth_getLogs-style filter over the log index. `topics[i]` null = any; an array = any of those values. */
export interface LogFilter {
  fromBlock: number;
  toBlock: number;
  /** One address or any of several; omitted = any. */
  address?: Uint8Array | Uint8Array[];
  topics?: (Uint8Array | Uint8Array[] | null)[];
  /** Stop with STORE_RESULT_LIMIT when more logs than this match (protects the caller's memory). */
  limit?: number;
}

/** A log index hit: the position of the log; its data lives in the block's receipts. */
export interface LogHit {
  blockNumber: number;
  blockHash: Uint8Array;
  txIndex: number;
  logIndex: number;
  address: Uint8Array;
  topics: Uint8Array[];
}

/** Structured logger the store writes to (pino's shape; any object with these methods works). */
export interface StoreLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

/** A logger that drops everything, for tests and tools that print their own output. */
export const silentLogger: StoreLogger = { info: () => {}, warn: () => {}, error: () => {} };
