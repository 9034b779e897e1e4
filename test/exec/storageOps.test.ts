import { EVM, NobleBN254 } from '@ethereumjs/evm';
import { describe, expect, it } from 'vitest';
import { isFastInterpreter } from '../../core/exec/evm/fastInterpreter.ts';
import { EvmHost } from '../../core/exec/evmHost.ts';
import { EvmStateManager } from '../../core/exec/evmStateManager.ts';
import { commonFor } from '../../core/exec/hardfork.ts';
import type { BlockEnv } from '../../core/exec/types.ts';
import type { Fork } from '../../core/chain/forks.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { EMPTY_ACCOUNT } from '../../core/state/account.ts';
import { JournaledState } from '../../core/state/journaledState.ts';
import { MemoryState } from '../../core/state/memoryState.ts';
import { SENDER, addr, runMessage, testBlockEnv } from './support/evmMessages.ts';

const COLD = addr(0xa0);
const WARM = addr(0xa1);
const STATIC = addr(0xa2);
const word = (n: bigint): string => n.toString(16).padStart(64, '0');

/** SSTORE(cd[0], cd[32]); SSTORE(cd[0], cd[64]); SSTORE(cd[0], cd[96]); returns SLOAD(cd[0]). */
const WRITES = '602035600035556040356000355560603560003555' + '6000355460005260206000f3';
const CODES: ReadonlyArray<readonly [Uint8Array, string]> = [
  [COLD, WRITES],
  // The slot read (and so warmed) first: EIP-2929's warm costs and EIP-2200's warm refunds.
  [WARM, `6000355450${WRITES}`],
  // STATICCALL into COLD with its calldata: the SSTORE fails inside; returns the call's success flag.
  [STATIC, `366000600037 6000600036600073${bytesToHex(COLD).slice(2)}5afa 60005260206000f3`.replace(/ /g, '')],
];
/** Slot 1 holds 1 before every message; slot 0 is empty. */
const PRESET = Uint8Array.of(1);

const ENV = (fork: Fork): BlockEnv => testBlockEnv(fork);

function world(): JournaledState {
  const state = new JournaledState(new MemoryState());
  state.putAccount(SENDER, { ...EMPTY_ACCOUNT, balance: 10n ** 24n });
  for (const [address, code] of CODES) {
    state.putCode(address, hexToBytes(`0x${code}`));
    state.putStorage(address, hexToBytes(`0x${word(1n)}`), PRESET);
  }
  // Committed: the preset is every slot's value at the start of the transaction (EIP-2200's original value).
  state.markCommitted();
  return state;
}

function storageOf(state: JournaledState): unknown {
  return [...state.changes().storage].map(([k, slots]) => [k, [...slots].map(([s, v]) => [s, bytesToHex(v)])]);
}

const VALUES = [0n, 1n, 2n];
const SEQUENCES = VALUES.flatMap((a) => VALUES.flatMap((b) => VALUES.map((c) => [a, b, c])));
/** Around EIP-2200's sentry (no SSTORE with 2,300 gas or less left) and the cold/warm costs, then plenty. */
const GAS_LIMITS = [2_300n, 2_309n, 2_310n, 2_311n, 4_500n, 5_000n, 22_200n, 25_000n, 200_000n];

describe('SLOAD/SSTORE without a promise (decision 0035)', () => {
  for (const fork of ['Shanghai', 'Cancun', 'Prague', 'Osaka'] as const) {
    it(`default: on ${fork}, every EIP-2200 write sequence gives the library's gas, refund, errors and storage`, async () => {
      const host = new EvmHost(1337n, fork, world());
      const libraryState = new EvmStateManager(world());
      const library = new EVM({ common: commonFor(1337n, fork), stateManager: libraryState, bn254: new NobleBN254() });
      expect(isFastInterpreter(host.evm)).toBe(true);
      for (const to of [COLD, WARM, STATIC]) {
        for (const slot of [0n, 1n]) {
          for (const seq of SEQUENCES) {
            const data = [slot, ...seq].map(word).join('');
            for (const gas of to === STATIC ? [200_000n] : GAS_LIMITS) {
              const fastState = world();
              const libState = world();
              const block = host.bind(fastState, ENV(fork));
              libraryState.state = libState;
              const expected = await runMessage(library, block, to, data, gas);
              const actual = await runMessage(host.evm, block, to, data, gas);
              expect({ to: bytesToHex(to), data, gas, ...(actual as object) }).toEqual({
                to: bytesToHex(to),
                data,
                gas,
                ...(expected as object),
              });
              expect(storageOf(fastState)).toEqual(storageOf(libState));
            }
          }
        }
      }
    });
  }
});
