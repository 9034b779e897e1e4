/**
 * The system contracts' native paths (core/exec/block/nativeSystemCall.ts) leave the state exactly as the EVM running
 * the contracts' bytecode does: the same changes (accounts, slots, code), the same output and the same state root,
 * block after block (ring buffer slots reused, a zero root), and they stand aside (the EVM runs) for any other code at
 * those addresses and for a request queue that is not empty.
 */
import { describe, expect, it } from 'vitest';
import { SYSTEM_CONTRACTS } from '../../core/chain/genesis/systemContracts.ts';
import { evmSystemCall, systemCall } from '../../core/exec/block/systemCalls.ts';
import { nativeSystemCall } from '../../core/exec/block/nativeSystemCall.ts';
import { EvmHost } from '../../core/exec/evmHost.ts';
import type { BlockEnv } from '../../core/exec/types.ts';
import { bigIntToBytes, bytesToHex, hexToBytes, padLeft } from '../../core/primitives/hex.ts';
import { applyAlloc, type AllocAccount } from '../../core/state/alloc.ts';
import { JournaledState } from '../../core/state/journaledState.ts';
import { MemoryState } from '../../core/state/memoryState.ts';
import { StateRootComputer } from '../../core/state/stateRoot.ts';

const [BEACON, HISTORY, WITHDRAWALS, CONSOLIDATIONS] = SYSTEM_CONTRACTS.map((c) => hexToBytes(`0x${c.address}`));
const word = (n: bigint): Uint8Array => padLeft(bigIntToBytes(n), 32);

/** A committed state holding the four system contracts (`code` and `storage` per address where given). */
function committed(over: { code?: Record<string, string>; storage?: Record<string, [bigint, bigint][]> } = {}): MemoryState {
  const backend = new MemoryState();
  const alloc: [Uint8Array, AllocAccount][] = SYSTEM_CONTRACTS.map((c) => [
    hexToBytes(`0x${c.address}`),
    {
      balance: 0n,
      nonce: 1n,
      code: hexToBytes(over.code?.[c.address] ?? c.code),
      storage: (over.storage?.[c.address] ?? []).map(([k, v]) => [word(k), bigIntToBytes(v)] as const),
    },
  ]);
  applyAlloc(backend, alloc);
  return backend;
}

function env(number: bigint, timestamp: bigint): BlockEnv {
  return {
    chainId: 1337n,
    fork: 'Osaka',
    number,
    timestamp,
    coinbase: new Uint8Array(20),
    gasLimit: 30_000_000n,
    difficulty: 2n,
    prevRandao: new Uint8Array(32),
    baseFee: 7n,
    blockHash: () => undefined,
  };
}

/** One block's four system calls, through `call`, on a fresh overlay of `backend`; then its changes and state root. */
async function runBlock(
  backend: MemoryState,
  call: typeof systemCall,
  number: bigint,
  timestamp: bigint,
  root: Uint8Array,
  parent: Uint8Array,
) {
  const state = new JournaledState(backend);
  const host = new EvmHost(1337n, 'Osaka', state);
  const block = host.bind(state, env(number, timestamp));
  const outputs = [
    await call(host, block, state, BEACON, root),
    await call(host, block, state, HISTORY, parent),
    await call(host, block, state, WITHDRAWALS, new Uint8Array(0)),
    await call(host, block, state, CONSOLIDATIONS, new Uint8Array(0)),
  ].map((o) => bytesToHex(o));
  const changes = state.changes();
  // The EVM's call deletes the absent SYSTEM_ADDRESS it touched (EIP-161 cleanup) and systemCall puts it back absent:
  // a deletion of an account that never existed, which changes no root and no read. The native path leaves it out.
  const absent = new Set([...changes.accounts.keys(), ...changes.storageCleared].filter((key) => backend.accounts.get(key) === undefined));
  const computed = new StateRootComputer(backend.nodes).apply(changes, (key) => state.accountByKey(key));
  backend.applyChanges(changes, computed.storageRoots);
  const plain = {
    accounts: [...changes.accounts]
      .filter(([k, a]) => !(a === null && absent.has(k)))
      .map(([k, a]) => [k, a && { ...a, storageRoot: bytesToHex(a.storageRoot), codeHash: bytesToHex(a.codeHash) }]),
    storage: [...changes.storage].map(([k, slots]) => [k, [...slots].map(([s, v]) => [s, bytesToHex(v)]).sort()]).sort(),
    cleared: [...changes.storageCleared].filter((k) => !absent.has(k)),
    code: [...changes.code.keys()],
  };
  return { outputs, changes: plain, root: bytesToHex(computed.root) };
}

/** Runs the same blocks natively (systemCall) and on the EVM alone, each on its own copy of the committed state. */
async function compare(make: () => MemoryState, blocks: [bigint, bigint, Uint8Array, Uint8Array][]) {
  const native = make();
  const evm = make();
  const results = [];
  for (const [n, ts, root, parent] of blocks) {
    const a = await runBlock(native, systemCall, n, ts, root, parent);
    const b = await runBlock(evm, evmSystemCall, n, ts, root, parent);
    expect(a).toEqual(b);
    results.push(a);
  }
  return results;
}

const hash = (b: number): Uint8Array => new Uint8Array(32).fill(b);

describe('native system calls', () => {
  it('default: the same changes, outputs and state root as the EVM, block after block', async () => {
    const results = await compare(committed, [
      [1n, 1_000n, hash(0xa1), hash(0x11)],
      [2n, 1_002n, hash(0xa2), hash(0x12)],
      // The ring buffers' slots come round again (timestamp and number 8191 later).
      [8_193n, 1_000n + 8_191n, hash(0xa3), hash(0x13)],
      // A zero root and parent hash clear their slots.
      [8_194n, 1_002n + 8_191n, new Uint8Array(32), new Uint8Array(32)],
    ]);
    // What the blocks wrote: two slots to the beacon roots, one to the history, nothing to the request queues.
    expect(results[0].changes.storage.map(([k]) => k)).toEqual([SYSTEM_CONTRACTS[1].address, SYSTEM_CONTRACTS[0].address].sort());
    expect(results[0].outputs).toEqual(['0x', '0x', '0x', '0x']);
  });

  it('edge: a request queue holding requests, or an excess, runs on the EVM and ends the same', async () => {
    const busy = () =>
      committed({
        storage: {
          [SYSTEM_CONTRACTS[2].address]: [
            [0n, 3n],
            [1n, 4n],
          ],
          [SYSTEM_CONTRACTS[3].address]: [[0n, (1n << 256n) - 1n]],
        },
      });
    await compare(busy, [
      [5n, 5_000n, hash(1), hash(2)],
      [6n, 5_002n, hash(3), hash(4)],
    ]);
    const state = new JournaledState(busy());
    const target = state.getAccount(WITHDRAWALS);
    if (target === undefined) throw new Error('no withdrawal contract');
    expect(nativeSystemCall(state, WITHDRAWALS, target, new Uint8Array(0), { number: 5n, timestamp: 5_000n })).toBeUndefined();
    expect(state.changes().storage.size).toBe(0);
  });

  it('edge: other code at a system address runs on the EVM', async () => {
    // The canonical code with one unreachable byte appended: another code hash, the same behaviour.
    const code = Object.fromEntries(SYSTEM_CONTRACTS.map((c) => [c.address, `${c.code}00`]));
    const other = () => committed({ code });
    await compare(other, [[1n, 1_000n, hash(0xa1), hash(0x11)]]);
    const state = new JournaledState(other());
    const target = state.getAccount(BEACON);
    if (target === undefined) throw new Error('no beacon roots contract');
    expect(nativeSystemCall(state, BEACON, target, hash(1), { number: 1n, timestamp: 1_000n })).toBeUndefined();
  });
});
