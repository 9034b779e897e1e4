/**
 * The system contracts' system-call paths run without the EVM, for the contracts whose code is the one their EIP
 * deployed (checked by code hash: a chain may put other code at those addresses, and that code runs on the EVM). Each
 * function makes exactly the storage writes and returns exactly the output of the bytecode's `caller == SYSTEM_ADDRESS`
 * branch (read from the runtime code in core/chain/genesis/systemContracts.ts), or answers undefined where it does not
 * cover the case (a request queue holding requests), and the EVM runs it. The state sees what an EVM system call
 * leaves: the contract account written as it was, the slots written, SYSTEM_ADDRESS untouched (systemCall puts it
 * back), the per-transaction original values forgotten.
 */
import { SYSTEM_CONTRACTS } from '../../chain/genesis/systemContracts.ts';
import { bigIntToBytes, bytesToHex, equalBytes, hexToBytes, padLeft } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import type { AccountState } from '../../state/account.ts';
import type { JournaledState } from '../../state/journaledState.ts';
import { trimStorageValue } from '../../state/keys.ts';

/** EIP-4788 HISTORY_BUFFER_LENGTH and EIP-2935 HISTORY_SERVE_WINDOW (both 8191). */
const RING_LENGTH = 8191n;

type NativeCall = (
  state: JournaledState,
  to: Uint8Array,
  data: Uint8Array,
  header: { number: bigint; timestamp: bigint },
) => Uint8Array | undefined;

const EMPTY = new Uint8Array(0);
const slot = (n: bigint): Uint8Array => padLeft(bigIntToBytes(n), 32);
const QUEUE_SLOTS = [0n, 1n, 2n, 3n].map(slot);

/** EIP-4788: `sstore(timestamp % 8191, timestamp)`, `sstore(timestamp % 8191 + 8191, calldata[0:32])`, stop. */
const beaconRoot: NativeCall = (state, to, data, header) => {
  if (data.length !== 32) return undefined;
  const index = header.timestamp % RING_LENGTH;
  state.putStorage(to, slot(index), bigIntToBytes(header.timestamp));
  state.putStorage(to, slot(index + RING_LENGTH), trimStorageValue(data));
  return EMPTY;
};

/** EIP-2935: `sstore((number - 1) % 8191, calldata[0:32])`, stop. */
const parentHash: NativeCall = (state, to, data, header) => {
  if (data.length !== 32 || header.number === 0n) return undefined;
  state.putStorage(to, slot((header.number - 1n) % RING_LENGTH), trimStorageValue(data));
  return EMPTY;
};

/**
 * EIP-7002 / EIP-7251 with excess (slot 0), count (1), queue head (2) and tail (3) all zero: nothing to dequeue, the
 * new excess is 0 and every write puts back a zero, the output is empty. Anything else runs on the EVM.
 */
const emptyRequestQueue: NativeCall = (state, to) => {
  for (const s of QUEUE_SLOTS) if (state.getStorage(to, s).length !== 0) return undefined;
  return EMPTY;
};

const BY_ADDRESS: ReadonlyMap<string, { codeHash: Uint8Array; run: NativeCall }> = new Map(
  SYSTEM_CONTRACTS.map((c) => {
    const run: Record<string, NativeCall> = {
      '000f3df6d732807ef1319fb7b8bb8522d0beac02': beaconRoot,
      '0000f90827f1c53a10cb7a02335b175320002935': parentHash,
      '00000961ef480eb55e80d19ad83579a64c007002': emptyRequestQueue,
      '0000bbddc7ce488642fb579f8b00f3a590007251': emptyRequestQueue,
    };
    const fn = run[c.address];
    if (fn === undefined) throw new Error(`nativeSystemCall: no native path for system contract 0x${c.address}`);
    return [`0x${c.address}`, { codeHash: keccak256(hexToBytes(c.code)), run: fn }];
  }),
);

/**
 * Runs the system call to `to` (whose account is `target`) natively when its code is the canonical one and the case is
 * covered; returns its output, or undefined when the EVM must run it (nothing was written then).
 */
export function nativeSystemCall(
  state: JournaledState,
  to: Uint8Array,
  target: AccountState,
  data: Uint8Array,
  header: { number: bigint; timestamp: bigint },
): Uint8Array | undefined {
  const entry = BY_ADDRESS.get(bytesToHex(to).toLowerCase());
  if (entry === undefined || !equalBytes(entry.codeHash, target.codeHash)) return undefined;
  state.checkpoint();
  const out = entry.run(state, to, data, header);
  if (out === undefined) {
    state.revert();
    return undefined;
  }
  // As the EVM's call leaves it: the callee's account written back unchanged (its storage root is recomputed).
  state.putAccount(to, target);
  state.commit();
  state.clearOriginalStorage();
  return out;
}
