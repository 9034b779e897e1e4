import { EVM, NobleBN254 } from '@ethereumjs/evm';
import { describe, expect, it } from 'vitest';
import { enableFastInterpreter, isFastInterpreter, watchSteps } from '../../core/exec/evm/fastInterpreter.ts';
import { EvmHost } from '../../core/exec/evmHost.ts';
import { EvmStateManager } from '../../core/exec/evmStateManager.ts';
import { commonFor } from '../../core/exec/hardfork.ts';
import type { BlockEnv } from '../../core/exec/types.ts';
import { type Fork, isForkActive } from '../../core/chain/forks.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { EMPTY_ACCOUNT } from '../../core/state/account.ts';
import { JournaledState } from '../../core/state/journaledState.ts';
import { MemoryState } from '../../core/state/memoryState.ts';
import { SENDER, addr, runMessage, testBlockEnv } from './support/evmMessages.ts';

const ETH = 10n ** 18n;
const CALLER = addr(0xc0);
const CALLEE = addr(0xc1);
const REVERTER = addr(0xc2);
const LOOP = addr(0xc3);
const BAD_JUMP = addr(0xc4);
const INVALID = addr(0xc5);
const MEMORY = addr(0xc6);
const hex = (b: Uint8Array): string => bytesToHex(b).slice(2);

/** Stores calldata word 0, hashes it, SSTOREs it under its hash, SLOADs it back, LOG1s and returns 96 bytes. */
const CALLEE_CODE = '6000356000526020600020602052' + '600035602051' + '55' + '60205154604052' + '610abc60606000a1' + '60606000f3';
/** Runtime code of the created contract: returns the word 7. */
const CREATED_RUNTIME = '600760005260206000f3';
const INITCODE = `69${CREATED_RUNTIME}600052600a6016f3`;
/**
 * Writes a word past the first 8 KiB of memory, CALLs the callee with calldata word 0, CREATEs a contract from
 * memory, calls it, stores its answer, and returns 9,032 bytes of memory.
 */
const CALLER_CODE = [
  `7f${'ab'.repeat(32)}61232852`, // MSTORE(9000, 0xabab…): memory grows past the pooled 8 KiB
  '600035600052', // MSTORE(0, calldata word 0)
  `60606040602060006000 73${hex(CALLEE)} 5af150`, // CALL callee(in 0..32, out 64..160); POP
  `72${INITCODE}61012c52`, // MSTORE(300, initcode): initcode at 313..332
  '601361013960 00f0', // CREATE(0, 313, 19)
  '60206101f4600060006000 85 5af15050', // CALL created(out 500..532); POP; POP
  '6101f451600155', // SSTORE(1, MLOAD(500))
  '6123486000f3', // RETURN(0, 9032)
]
  .join('')
  .replace(/ /g, '');

const CODES: ReadonlyArray<readonly [Uint8Array, string]> = [
  [CALLER, CALLER_CODE],
  [CALLEE, CALLEE_CODE],
  [REVERTER, '604260005260206000fd'],
  [LOOP, '5b600056'],
  [BAD_JUMP, '600556'],
  [INVALID, 'fe'],
  // MSTORE8(0x4000, 0xff), then MLOAD(0x5000): both grow memory, so both charge the (promise-free) expansion gas.
  [MEMORY, '60ff61400053615000515000'],
];

const ENV: BlockEnv = testBlockEnv('Shanghai', 1_700_000_000n);

function world(): JournaledState {
  const state = new JournaledState(new MemoryState());
  state.putAccount(SENDER, { ...EMPTY_ACCOUNT, balance: 100n * ETH });
  for (const [address, code] of CODES) state.putCode(address, hexToBytes(`0x${code}`));
  return state;
}

/** Runs one message on `evm` (gas 2M unless given). */
const run = (evm: EVM, block: unknown, to: Uint8Array, data: string, gasLimit = 2_000_000n, blobs?: `0x${string}`[]) =>
  runMessage(evm, block, to, data, gasLimit, blobs);

function changesOf(state: JournaledState): unknown {
  const c = state.changes();
  return {
    accounts: [...c.accounts].map(([k, a]) => [k, a && { ...a, storageRoot: undefined }]),
    storage: [...c.storage].map(([k, slots]) => [k, [...slots].map(([s, v]) => [s, bytesToHex(v)])]),
    code: [...c.code].map(([k, v]) => [k, bytesToHex(v)]),
  };
}

const MESSAGES: ReadonlyArray<readonly [Uint8Array, string, bigint?]> = [
  [CALLER, '11'.repeat(32)],
  [CALLER, `${'00'.repeat(31)}05`],
  [CALLEE, 'ff'.repeat(32)],
  [REVERTER, ''],
  [LOOP, '', 100_000n],
  [BAD_JUMP, ''],
  [INVALID, ''],
  [CALLER, '22'.repeat(32), 60_000n],
  [CALLER, '33'.repeat(32)],
  [MEMORY, ''],
  // Out of gas in MSTORE8's expansion (513 words: 2,053 gas), then in MLOAD's (641 words: 2,725 gas).
  [MEMORY, '', 2_000n],
  [MEMORY, '', 2_500n],
];

/**
 * One program per opcode the Cancun, Prague and Osaka forks added (EIP-1153, 5656, 4844, 7516, 7939), each returning
 * what the opcode produced, so the two loops are compared on the values as well as on gas and errors.
 */
const T_STORE = addr(0xd0);
const T_STATIC = addr(0xd1);
const M_COPY = addr(0xd2);
const BLOB_HASH = addr(0xd3);
const BLOB_BASE_FEE = addr(0xd4);
const C_LZ = addr(0xd5);
const NEW_OPCODES: ReadonlyArray<{ op: string; since: Fork; at: Uint8Array; code: string }> = [
  // TSTORE(1, 7); TSTORE(2, 9); TSTORE(2, 0); return [TLOAD(1), TLOAD(2), TLOAD(3)].
  {
    op: 'TSTORE/TLOAD',
    since: 'Cancun',
    at: T_STORE,
    code: '600760015d600960025d600060025d' + '60015c600052' + '60025c602052' + '60035c604052' + '60606000f3',
  },
  // STATICCALL into the TSTORE program: the write fails inside (the call returns 0); TLOAD(1) after it is 0.
  {
    op: 'TSTORE in STATICCALL',
    since: 'Cancun',
    at: T_STATIC,
    code: `60006000600060006000 73${hex(T_STORE)} 61fffffa600052 60015c602052 60406000f3`.replace(/ /g, ''),
  },
  // MSTORE(0, 0xab…); MCOPY(0x30, 0x08, 0x40): overlapping, grows memory to 0x70; return 0x80 bytes.
  { op: 'MCOPY', since: 'Cancun', at: M_COPY, code: `7f${'ab'.repeat(16)}${'cd'.repeat(16)}600052` + '604060086030' + '5e' + '60806000f3' },
  // [BLOBHASH(0), BLOBHASH(1), BLOBHASH(2)]: the second and third are past the list (0).
  { op: 'BLOBHASH', since: 'Cancun', at: BLOB_HASH, code: '600049600052' + '600149602052' + '600249604052' + '60606000f3' },
  { op: 'BLOBBASEFEE', since: 'Cancun', at: BLOB_BASE_FEE, code: '4a60005260206000f3' },
  // [CLZ(1), CLZ(0), CLZ(2^255), CLZ(0x00ff…)].
  {
    op: 'CLZ',
    since: 'Osaka',
    at: C_LZ,
    code: '60011e600052' + '5f1e602052' + '600160ff1b1e604052' + `7f00${'ff'.repeat(31)}1e606052` + '60806000f3',
  },
];
const BLOB_HASHES: `0x${string}`[] = [`0x01${'5a'.repeat(31)}`];

function forkWorld(): JournaledState {
  const state = world();
  for (const { at, code } of NEW_OPCODES) state.putCode(at, hexToBytes(`0x${code}`));
  return state;
}

describe('fast interpreter on the forks after Shanghai (issue #13)', () => {
  for (const fork of ['Shanghai', 'Cancun', 'Prague', 'Osaka'] as const) {
    it(`default: on ${fork}, every opcode added by Cancun-Osaka gives the same result on both loops (or fails the same way before its fork)`, async () => {
      const env: BlockEnv = { ...ENV, fork, ...(fork === 'Shanghai' ? {} : { blobBaseFee: 3n, maxBlobGas: 786_432n }) };
      const fastState = forkWorld();
      const libState = forkWorld();
      const host = new EvmHost(1337n, fork, fastState);
      const block = host.bind(fastState, env);
      expect(isFastInterpreter(host.evm)).toBe(true);
      const library = new EVM({ common: commonFor(1337n, fork), stateManager: new EvmStateManager(libState), bn254: new NobleBN254() });
      for (const { op, since, at } of NEW_OPCODES) {
        const expected = (await run(library, block, at, '', 200_000n, BLOB_HASHES)) as { error?: string; returnValue: string };
        const actual = await run(host.evm, block, at, '', 200_000n, BLOB_HASHES);
        expect(actual, `${op} on ${fork}`).toEqual(expected);
        // The programs really run their opcode where it is active, and fail as an invalid opcode before.
        if (isForkActive(fork, since)) expect(expected.error, `${op} on ${fork}`).toBeUndefined();
        else expect(expected.error, `${op} on ${fork}`).toBe('invalid opcode');
      }
      expect(changesOf(fastState)).toEqual(changesOf(libState));
    });
  }

  it('behavior: the fork programs compute what their EIPs say (Osaka)', async () => {
    const state = forkWorld();
    const host = new EvmHost(1337n, 'Osaka', state);
    const block = host.bind(state, { ...ENV, fork: 'Osaka', blobBaseFee: 3n, maxBlobGas: 786_432n });
    const word = (n: bigint | number): string => BigInt(n).toString(16).padStart(64, '0');
    const out = async (at: Uint8Array): Promise<string> =>
      ((await run(host.evm, block, at, '', 200_000n, BLOB_HASHES)) as { returnValue: string }).returnValue;
    expect(await out(T_STORE)).toBe(`0x${word(7)}${word(0)}${word(0)}`);
    expect(await out(T_STATIC)).toBe(`0x${word(0)}${word(0)}`);
    const mem = ('ab'.repeat(16) + 'cd'.repeat(16)).padEnd(256, '0');
    const copied = mem.slice(0, 0x30 * 2) + mem.slice(0x08 * 2, 0x48 * 2) + mem.slice(0x70 * 2);
    expect(await out(M_COPY)).toBe(`0x${copied}`);
    expect(await out(BLOB_HASH)).toBe(`${BLOB_HASHES[0]}${word(0)}${word(0)}`);
    expect(await out(BLOB_BASE_FEE)).toBe(`0x${word(3)}`);
    expect(await out(C_LZ)).toBe(`0x${word(255)}${word(256)}${word(0)}${word(8)}`);
  });
});

describe('fast interpreter (decision 0027)', () => {
  it('default: gives the same gas, errors, return data, logs and state as the library loop', async () => {
    const fastState = world();
    const libState = world();
    const host = new EvmHost(1337n, 'Shanghai', fastState);
    const block = host.bind(fastState, ENV);
    expect(isFastInterpreter(host.evm)).toBe(true);
    const library = new EVM({ common: commonFor(1337n, 'Shanghai'), stateManager: new EvmStateManager(libState), bn254: new NobleBN254() });
    expect(isFastInterpreter(library)).toBe(false);
    for (const [to, data, gas] of MESSAGES) {
      const expected = await run(library, block, to, data, gas);
      const actual = await run(host.evm, block, to, data, gas);
      expect(actual).toEqual(expected);
    }
    expect(changesOf(fastState)).toEqual(changesOf(libState));
  });

  it('behavior: the caller program really exercises calls, creation, storage and memory past 8 KiB', async () => {
    const state = world();
    const host = new EvmHost(1337n, 'Shanghai', state);
    const block = host.bind(state, ENV);
    const r = (await run(host.evm, block, CALLER, '11'.repeat(32))) as { error?: string; returnValue: string; logs: unknown[] };
    expect(r.error).toBeUndefined();
    expect(r.logs).toHaveLength(1);
    expect((r.returnValue.length - 2) / 2).toBe(0x2348);
    expect(r.returnValue.slice(2 + 9000 * 2, 2 + 9032 * 2)).toBe('ab'.repeat(32));
    // Slot 1 of the caller holds what the created contract returned (7).
    const slot1 = new Uint8Array(32);
    slot1[31] = 1;
    expect(bytesToHex(state.getStorage(CALLER, slot1))).toBe('0x07');
  });

  it('behavior: a step watch stops an endless loop on the fast loop', async () => {
    const state = world();
    const host = new EvmHost(1337n, 'Shanghai', state);
    const block = host.bind(state, ENV);
    let checks = 0;
    watchSteps(host.evm, 1000, () => {
      if (++checks === 5) throw new Error('stop');
    });
    await expect(run(host.evm, block, LOOP, '', 10n ** 12n)).rejects.toThrow('stop');
    expect(checks).toBe(5);
  });

  it('behavior: enabling twice is harmless', () => {
    const state = world();
    const host = new EvmHost(1337n, 'Shanghai', state);
    expect(enableFastInterpreter(host.evm)).toEqual({ enabled: true });
  });
});
