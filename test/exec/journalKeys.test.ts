/**
 * The Journal's warm-set methods keyed through the native hex encoder (core/exec/evm/journalKeys.ts) must leave the
 * Journal exactly as the library's own methods do: the same maps, diffs, touched set and access list after a run of
 * warm-ups, touches, checkpoints, reverts and commits, and the same answers to every warm check.
 */
import { describe, expect, it } from 'vitest';
import { Address } from '@ethereumjs/util';
import { installJournalKeys } from '../../core/exec/evm/journalKeys.ts';
import { EvmHost } from '../../core/exec/evmHost.ts';
import { JournaledState } from '../../core/state/journaledState.ts';
import { MemoryState } from '../../core/state/memoryState.ts';

interface JournalLike {
  journal: Map<string, Set<string>>;
  alwaysWarmJournal: Map<string, Set<string>>;
  journalDiff: [number, [Set<string>, Map<string, Set<string>>, Set<string>]][];
  touched: Set<string>;
  accessList?: Map<string, Set<string>>;
  startReportingAccessList(): void;
  addAlwaysWarmAddress(a: string, toList?: boolean): void;
  addAlwaysWarmSlot(a: string, s: string, toList?: boolean): void;
  isWarmedAddress(a: Uint8Array): boolean;
  addWarmedAddress(a: Uint8Array): void;
  isWarmedStorage(a: Uint8Array, s: Uint8Array): boolean;
  addWarmedStorage(a: Uint8Array, s: Uint8Array): void;
  touchAddress(a: Address): void;
  checkpoint(): Promise<void>;
  commit(): Promise<void>;
  revert(): Promise<void>;
}

const sets = (m: Map<string, Set<string>> | undefined) => (m === undefined ? undefined : [...m].map(([k, v]) => [k, [...v]]));
const snapshot = (j: JournalLike) => ({
  journal: sets(j.journal),
  always: sets(j.alwaysWarmJournal),
  diff: j.journalDiff.map(([h, [a, s, t]]) => [h, [...a], sets(s), [...t]]),
  touched: [...j.touched],
  accessList: sets(j.accessList),
});

const bytes = (n: number, len: number): Uint8Array => new Uint8Array(len).fill(n);

async function script(j: JournalLike): Promise<unknown[]> {
  const [a1, a2, a3] = [bytes(0x11, 20), bytes(0xab, 20), bytes(0xc3, 20)];
  // A slot key as the EVM hands it: a view into a larger buffer.
  const word = new Uint8Array(64);
  word.fill(0xee, 32);
  const [s1, s2, s3] = [bytes(1, 32), word.subarray(32), bytes(0, 32)];
  const answers: unknown[] = [];
  const ask = () =>
    answers.push(
      [a1, a2, a3].map((a) => j.isWarmedAddress(a)),
      [a1, a2, a3].flatMap((a) => [s1, s2, s3].map((s) => j.isWarmedStorage(a, s))),
      snapshot(j),
    );
  j.startReportingAccessList();
  j.addAlwaysWarmAddress('0x' + Buffer.from(a3).toString('hex'), true);
  j.addAlwaysWarmSlot('0x' + Buffer.from(a3).toString('hex'), '0x' + '00'.repeat(32), true);
  ask();
  await j.checkpoint();
  j.addWarmedAddress(a1);
  j.addWarmedStorage(a1, s1);
  j.addWarmedStorage(a2, s2);
  j.touchAddress(new Address(a2));
  ask();
  await j.checkpoint();
  j.addWarmedStorage(a1, s2);
  j.addWarmedStorage(a3, s1);
  j.touchAddress(new Address(a1));
  ask();
  await j.revert();
  ask();
  await j.checkpoint();
  j.addWarmedStorage(a2, s3);
  await j.commit();
  await j.commit();
  ask();
  return answers;
}

describe('Journal warm-set keys', () => {
  it('leaves the Journal as the library methods do, answer for answer', async () => {
    const host = new EvmHost(1337n, 'Osaka', new JournaledState(new MemoryState()), { libraryLoop: true });
    const evm = host.evm as unknown as { journal: { constructor: new (sm: unknown, common: unknown) => JournalLike }; common: unknown };
    const Journal = evm.journal.constructor;
    const stateManager = { checkpoint: async () => {}, commit: async () => {}, revert: async () => {} };
    const library = new Journal(stateManager, evm.common);
    const ours = new Journal(stateManager, evm.common);
    expect(installJournalKeys(ours)).toBe(true);
    expect(ours.isWarmedStorage).not.toBe(library.isWarmedStorage);
    expect(await script(ours)).toEqual(await script(library));
  });

  it('leaves an object of another shape alone', () => {
    const other = { isWarmedAddress: () => true };
    expect(installJournalKeys(other)).toBe(false);
    expect(installJournalKeys(undefined)).toBe(false);
  });
});
