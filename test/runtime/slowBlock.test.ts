import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/log/index.ts';
import { logSlowBlock, shouldLogSlowBlock, slowBlockFields, type SlowBlockInput } from '../../core/runtime/slowBlock.ts';

const input: SlowBlockInput = {
  number: 21_970n,
  hash: new Uint8Array(32).fill(0xab),
  gasUsed: 105_672_000n,
  txCount: 5032,
  timing: { executionMs: 612.3456, stateReadMs: 80.5, stateHashMs: 120.25, commitMs: 40, totalMs: 960, recoveryMs: 95.4 },
  stateReads: { accounts: 10_064, storageSlots: 3, code: 1, codeBytes: 120 },
  stateWrites: { accounts: 10_064, accountsDeleted: 0, storageSlots: 2, storageSlotsDeleted: 1, code: 0, codeBytes: 0 },
  cache: { account: { hits: 3, misses: 1 }, storage: { hits: 0, misses: 0 }, code: { hits: 1, misses: 0 } },
};

describe('slow block line', () => {
  it('default: one JSON line in the geth 1.17 shape plus recovery_ms', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ destination: { write: (s: string) => lines.push(JSON.parse(s)) } });
    expect(logSlowBlock(logger, input, 0)).toBe(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      msg: 'Slow block',
      block: { number: 21970, hash: '0x' + 'ab'.repeat(32), gas_used: 105672000, tx_count: 5032 },
      timing: { execution_ms: 612.346, state_read_ms: 80.5, state_hash_ms: 120.25, commit_ms: 40, total_ms: 960, recovery_ms: 95.4 },
      throughput: { mgas_per_sec: 110.08 },
      state_reads: { accounts: 10064, storage_slots: 3, code: 1, code_bytes: 120 },
      state_writes: { accounts: 10064, accounts_deleted: 0, storage_slots: 2, storage_slots_deleted: 1, code: 0, code_bytes: 0 },
      cache: { account: { hits: 3, misses: 1, hit_rate: 75 }, storage: { hits: 0, misses: 0, hit_rate: 0 }, code: { hit_rate: 100 } },
    });
  });

  it('args: threshold 0 logs every block, a positive one only blocks at or over it, unset or negative none', () => {
    expect(shouldLogSlowBlock(0.1, 0)).toBe(true);
    expect(shouldLogSlowBlock(499.9, 500)).toBe(false);
    expect(shouldLogSlowBlock(500, 500)).toBe(true);
    expect(shouldLogSlowBlock(10_000, undefined)).toBe(false);
    expect(shouldLogSlowBlock(10_000, -1)).toBe(false);
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (s: string) => lines.push(s) } });
    expect(logSlowBlock(logger, input, 1000)).toBe(false);
    expect(lines).toHaveLength(0);
  });

  it('behavior: absent counters are zeros and a zero-time block has zero throughput', () => {
    const f = slowBlockFields({
      ...input,
      stateReads: undefined,
      stateWrites: undefined,
      cache: undefined,
      hash: '0x01',
      timing: { ...input.timing, totalMs: 0 },
    });
    expect(f.state_reads).toEqual({ accounts: 0, storage_slots: 0, code: 0, code_bytes: 0 });
    expect(f.state_writes.storage_slots_deleted).toBe(0);
    expect(f.throughput.mgas_per_sec).toBe(0);
    expect(f.block.hash).toBe('0x01');
  });
});
