import { EVM, NobleBN254 } from '@ethereumjs/evm';
import { describe, expect, it } from 'vitest';
import { isFastInterpreter } from '../../core/exec/evm/fastInterpreter.ts';
import { EvmHost } from '../../core/exec/evmHost.ts';
import { EvmStateManager } from '../../core/exec/evmStateManager.ts';
import { commonFor } from '../../core/exec/hardfork.ts';
import type { BlockEnv } from '../../core/exec/types.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { EMPTY_ACCOUNT } from '../../core/state/account.ts';
import { JournaledState } from '../../core/state/journaledState.ts';
import { MemoryState } from '../../core/state/memoryState.ts';
import { SENDER, addr, runMessage, testBlockEnv } from './support/evmMessages.ts';

const TARGET = addr(0xb0);
const STATIC = addr(0xb1);
const push32 = (n: bigint): string => `7f${n.toString(16).padStart(64, '0')}`;
const MAX = (1n << 256n) - 1n;

/** MSTOREs `count` words from the stack at 0, 32, …, then RETURNs them. */
function returnWords(count: number): string {
  let out = '';
  for (let i = count - 1; i >= 0; i--) out += `61${(i * 32).toString(16).padStart(4, '0')}52`;
  return `${out}61${(count * 32).toString(16).padStart(4, '0')}6000f3`;
}

const CALLDATA_POSITIONS = [0n, 1n, 8n, 39n, 40n, 41n, 1000n, 1n << 32n, 1n << 64n, MAX];
/** Fills memory 0..96 with a pattern the hashes, logs and returns read. */
const FILL = `${push32(0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20n)}600052${push32(MAX)}602052${push32(7n)}604052`;

const PROGRAMS: ReadonlyArray<readonly [string, string]> = [
  [
    'CALLDATALOAD at edge positions',
    `${CALLDATA_POSITIONS.map((p) => `${push32(p)}35`).join('')}${returnWords(CALLDATA_POSITIONS.length)}`,
  ],
  ['CALLER', `33${returnWords(1)}`],
  [
    'KECCAK256 of empty, one word, unaligned, grown memory',
    `${FILL}60006000 20 60206000 20 60406005 20 6064610400 20 6000610800 20 ${returnWords(5)}`,
  ],
  ['KECCAK256 past the gas', `${FILL}${push32(1n << 40n)}6000 20 00`],
  ['KECCAK256 stack underflow', '600020'],
  [
    'LOG0-LOG4 with data and topics',
    `${FILL}60006000a0 6001602060 05a1 ${push32(MAX)}60026021 6003a2 600a600b600c6041600fa3 600a600b600c600d6000 6060a4 00`,
  ],
  ['LOG4 stack underflow', '6001600260036004 6000a4'],
  ['RETURN empty', '60006000f3'],
  ['RETURN grown memory', `${FILL}6050610100f3`],
  ['RETURN past the gas', `${push32(1n << 40n)}6000f3`],
  ['STOP', `${FILL}00`],
  ['code ends without STOP', '6001600201'],
];

const ENV: BlockEnv = testBlockEnv('Cancun');

function world(code: string): JournaledState {
  const state = new JournaledState(new MemoryState());
  state.putAccount(SENDER, { ...EMPTY_ACCOUNT, balance: 10n ** 24n });
  state.putCode(TARGET, hexToBytes(`0x${code.replace(/ /g, '')}`));
  // STATICCALL into TARGET with 40 bytes of calldata: a LOG there fails (static state change); returns [success].
  state.putCode(STATIC, hexToBytes(`0x600060006028600073${bytesToHex(TARGET).slice(2)}5afa${returnWords(1)}`));
  state.markCommitted();
  return state;
}

/** 40 bytes of calldata, the same for every program. */
const CALLDATA = `${'c3'.repeat(39)}5a`;
const run = (evm: EVM, block: unknown, to: Uint8Array, gasLimit: bigint) => runMessage(evm, block, to, CALLDATA, gasLimit);

describe('KECCAK256, CALLDATALOAD, CALLER, LOG, RETURN and STOP without the helpers (decision 0035)', () => {
  it("default: each gives the library's words, gas, logs, errors and return data, also in a STATICCALL", async () => {
    const host = new EvmHost(1337n, 'Cancun', world('00'));
    const libraryState = new EvmStateManager(world('00'));
    const library = new EVM({ common: commonFor(1337n, 'Cancun'), stateManager: libraryState, bn254: new NobleBN254() });
    expect(isFastInterpreter(host.evm)).toBe(true);
    for (const [name, code] of PROGRAMS) {
      for (const to of [TARGET, STATIC]) {
        for (const gas of [100_000n, 1_000n]) {
          const fastState = world(code);
          const block = host.bind(fastState, ENV);
          libraryState.state = world(code);
          const expected = await run(library, block, to, gas);
          const actual = await run(host.evm, block, to, gas);
          expect({ name, to: bytesToHex(to), gas, ...(actual as object) }).toEqual({
            name,
            to: bytesToHex(to),
            gas,
            ...(expected as object),
          });
        }
      }
    }
  });

  it('behavior: the programs really log, hash and return (the comparison is not of two empty results)', async () => {
    const state = world(PROGRAMS[5]?.[1] as string);
    const host = new EvmHost(1337n, 'Cancun', state);
    const r = (await run(host.evm, host.bind(state, ENV), TARGET, 100_000n)) as { logs: unknown[]; error?: string };
    expect(r.error).toBeUndefined();
    expect(r.logs).toHaveLength(5);
    const c = world(PROGRAMS[0]?.[1] as string);
    const ret = (await run(host.evm, host.bind(c, ENV), TARGET, 100_000n)) as { returnValue: string };
    // Word 0 is the calldata's first 32 bytes; word 3 (position 39) is 0x5a then zeros; word 4 (position 40) is 0.
    expect(ret.returnValue.slice(2, 66)).toBe('c3'.repeat(32));
    expect(ret.returnValue.slice(2 + 3 * 64, 2 + 4 * 64)).toBe(`5a${'00'.repeat(31)}`);
    expect(ret.returnValue.slice(2 + 4 * 64, 2 + 5 * 64)).toBe('00'.repeat(32));
  });
});
