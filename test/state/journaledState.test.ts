import { describe, expect, it } from 'vitest';
import { EMPTY_ACCOUNT, EMPTY_TRIE_ROOT } from '../../core/state/account.ts';
import { applyAlloc } from '../../core/state/alloc.ts';
import { JournaledState } from '../../core/state/journaledState.ts';
import { MemoryState } from '../../core/state/memoryState.ts';
import { StateRootComputer } from '../../core/state/stateRoot.ts';

const A = new Uint8Array(20).fill(0xaa);
const B = new Uint8Array(20).fill(0xbb);
const slot = (n: number): Uint8Array => {
  const s = new Uint8Array(32);
  s[31] = n;
  return s;
};

describe('JournaledState', () => {
  it('behavior: revert undoes nested writes, commit keeps them', () => {
    const state = new JournaledState(new MemoryState());
    state.checkpoint();
    state.putAccount(A, { ...EMPTY_ACCOUNT, balance: 5n });
    state.checkpoint();
    state.putAccount(A, { ...EMPTY_ACCOUNT, balance: 7n });
    state.putStorage(A, slot(1), Uint8Array.of(9));
    state.revert();
    expect(state.getAccount(A)?.balance).toBe(5n);
    expect(state.getStorage(A, slot(1)).length).toBe(0);
    state.commit();
    expect(state.getAccount(A)?.balance).toBe(5n);
    expect(state.depth).toBe(0);
  });

  it('behavior: deleting an account hides its committed storage until reverted', () => {
    const backend = new MemoryState();
    applyAlloc(backend, [[A, { balance: 1n, storage: [[slot(1), Uint8Array.of(3)]] }]]);
    const state = new JournaledState(backend);
    expect(state.getStorage(A, slot(1))).toEqual(Uint8Array.of(3));
    state.checkpoint();
    state.putAccount(A, null);
    expect(state.getStorage(A, slot(2)).length).toBe(0);
    expect(state.getStorage(A, slot(1)).length).toBe(0);
    state.revert();
    expect(state.getStorage(A, slot(1))).toEqual(Uint8Array.of(3));
  });

  it('behavior: original storage is the value at the start of the transaction', () => {
    const backend = new MemoryState();
    applyAlloc(backend, [[A, { balance: 1n, storage: [[slot(1), Uint8Array.of(3)]] }]]);
    const state = new JournaledState(backend);
    state.putStorage(A, slot(1), Uint8Array.of(4));
    state.putStorage(A, slot(1), Uint8Array.of(5));
    expect(state.getOriginalStorage(A, slot(1))).toEqual(Uint8Array.of(3));
    state.clearOriginalStorage();
    expect(state.getOriginalStorage(A, slot(1))).toEqual(Uint8Array.of(5));
  });

  it('behavior: incremental root equals the root of the same state built from scratch', () => {
    const backend = new MemoryState();
    const root0 = applyAlloc(backend, [[A, { balance: 10n }]]);
    const computer = new StateRootComputer(backend.nodes, root0);
    const state = new JournaledState(backend);
    state.putAccount(B, { ...EMPTY_ACCOUNT, balance: 3n });
    state.putStorage(A, slot(2), Uint8Array.of(1));
    const changes = state.changes();
    const { root, storageRoots } = computer.apply(changes, (k) => state.accountByKey(k));
    backend.applyChanges(changes, storageRoots);
    const fresh = applyAlloc(new MemoryState(), [
      [A, { balance: 10n, storage: [[slot(2), Uint8Array.of(1)]] }],
      [B, { balance: 3n }],
    ]);
    expect(root).toEqual(fresh);
    expect(backend.getAccount(A)?.storageRoot).not.toEqual(EMPTY_TRIE_ROOT);
  });
});
