/**
 * `--debug.logslowblock <ms>`: one JSON line per imported block whose total time reaches the threshold, in the
 * cross-client shape geth 1.17 introduced (core/blockchain_stats.go `slowBlockLog`; also emitted by reth, Besu,
 * Nethermind and Erigon; spec https://ethresear.ch/t/unifying-execution-layer-execution-metrics/22089):
 * `{"level":"warn","msg":"Slow block","block":{number,hash,gas_used,tx_count},"timing":{execution_ms,state_read_ms,
 * state_hash_ms,commit_ms,total_ms},"throughput":{mgas_per_sec},"state_reads":{…},"state_writes":{…},"cache":{…}}`.
 * We add `timing.recovery_ms` (sender recovery, which geth counts outside these stages); readers of the shared
 * shape ignore a field they do not know.
 */
import type { Logger } from '../log/types.ts';
import { bytesToHex } from '../primitives/hex.ts';

/** State reads during execution (geth: accounts, storage_slots, code, code_bytes). */
export interface SlowBlockReads {
  accounts: number;
  storageSlots: number;
  code: number;
  codeBytes: number;
}

/** State writes at commit (geth: accounts, accounts_deleted, storage_slots, storage_slots_deleted, code, code_bytes). */
export interface SlowBlockWrites {
  accounts: number;
  accountsDeleted: number;
  storageSlots: number;
  storageSlotsDeleted: number;
  code: number;
  codeBytes: number;
}

/** Hit/miss counts of one state cache. */
export interface SlowBlockCacheStats {
  hits: number;
  misses: number;
}

/** What the chain thread measured for one block; times in milliseconds (fractions allowed). */
export interface SlowBlockInput {
  number: number | bigint;
  hash: Uint8Array | string;
  gasUsed: number | bigint;
  txCount: number;
  timing: { executionMs: number; stateReadMs: number; stateHashMs: number; commitMs: number; totalMs: number; recoveryMs: number };
  stateReads?: SlowBlockReads;
  stateWrites?: SlowBlockWrites;
  cache?: { account: SlowBlockCacheStats; storage: SlowBlockCacheStats; code: SlowBlockCacheStats };
}

type CacheEntry = { hits: number; misses: number; hit_rate: number };

/** The fields of the line besides `level` and `msg`, with geth's snake_case names. */
export interface SlowBlockFields {
  block: { number: number; hash: string; gas_used: number; tx_count: number };
  timing: { execution_ms: number; state_read_ms: number; state_hash_ms: number; commit_ms: number; total_ms: number; recovery_ms: number };
  throughput: { mgas_per_sec: number };
  state_reads: { accounts: number; storage_slots: number; code: number; code_bytes: number };
  state_writes: {
    accounts: number;
    accounts_deleted: number;
    storage_slots: number;
    storage_slots_deleted: number;
    code: number;
    code_bytes: number;
  };
  cache: { account: CacheEntry; storage: CacheEntry; code: CacheEntry };
}

/** The log message, as geth writes it. */
export const SLOW_BLOCK_MSG = 'Slow block';

const ms = (v: number): number => Math.round(v * 1000) / 1000;
const cacheEntry = (c: SlowBlockCacheStats | undefined): CacheEntry => {
  const hits = c?.hits ?? 0;
  const misses = c?.misses ?? 0;
  return { hits, misses, hit_rate: hits + misses === 0 ? 0 : Math.round((hits / (hits + misses)) * 10_000) / 100 };
};

/**
 * True when a block taking `totalMs` must be logged: threshold 0 logs every block, a positive threshold logs blocks
 * at or over it, and `undefined` or a negative threshold (flag not set) logs none, as in geth.
 */
export function shouldLogSlowBlock(totalMs: number, thresholdMs: number | undefined): boolean {
  if (thresholdMs === undefined || thresholdMs < 0 || Number.isNaN(thresholdMs)) return false;
  return thresholdMs === 0 || totalMs >= thresholdMs;
}

/** Builds the line's fields from the measurements (absent counters are written as 0, as geth does). */
export function slowBlockFields(input: SlowBlockInput): SlowBlockFields {
  const { timing: t, stateReads: r, stateWrites: w } = input;
  const gas = Number(input.gasUsed);
  return {
    block: {
      number: Number(input.number),
      hash: typeof input.hash === 'string' ? input.hash : bytesToHex(input.hash),
      gas_used: gas,
      tx_count: input.txCount,
    },
    timing: {
      execution_ms: ms(t.executionMs),
      state_read_ms: ms(t.stateReadMs),
      state_hash_ms: ms(t.stateHashMs),
      commit_ms: ms(t.commitMs),
      total_ms: ms(t.totalMs),
      recovery_ms: ms(t.recoveryMs),
    },
    throughput: { mgas_per_sec: t.totalMs > 0 ? Math.round((gas / 1e6 / (t.totalMs / 1000)) * 100) / 100 : 0 },
    state_reads: { accounts: r?.accounts ?? 0, storage_slots: r?.storageSlots ?? 0, code: r?.code ?? 0, code_bytes: r?.codeBytes ?? 0 },
    state_writes: {
      accounts: w?.accounts ?? 0,
      accounts_deleted: w?.accountsDeleted ?? 0,
      storage_slots: w?.storageSlots ?? 0,
      storage_slots_deleted: w?.storageSlotsDeleted ?? 0,
      code: w?.code ?? 0,
      code_bytes: w?.codeBytes ?? 0,
    },
    cache: { account: cacheEntry(input.cache?.account), storage: cacheEntry(input.cache?.storage), code: cacheEntry(input.cache?.code) },
  };
}

/** Logs the "Slow block" line at warn level when the threshold says so; returns whether it logged. */
export function logSlowBlock(logger: Logger, input: SlowBlockInput, thresholdMs: number | undefined): boolean {
  if (!shouldLogSlowBlock(input.timing.totalMs, thresholdMs)) return false;
  logger.warn(SLOW_BLOCK_MSG, { ...slowBlockFields(input) });
  return true;
}
