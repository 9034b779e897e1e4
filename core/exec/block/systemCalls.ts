/**
 * Calls the protocol makes to system contracts around a block's transactions, as geth's ProcessBeaconBlockRoot,
 * ProcessParentBlockHash and processRequestsSystemCall do: from SYSTEM_ADDRESS, 30M gas, no value, no fee, no nonce
 * change, and SYSTEM_ADDRESS left as it was. A contract without code is not called (a chain whose genesis did not
 * deploy it simply has no history there and no requests of that type: decision 0033).
 *  - EIP-4788 (Cancun): the parent beacon block root into the beacon-roots ring buffer.
 *  - EIP-2935 (Prague): the parent block hash into the history contract.
 *  - EIP-7002 / EIP-7251 (Prague): dequeue withdrawal and consolidation requests after the transactions.
 * Where the contract holds its EIP's own code (code hash checked), the call runs natively instead (nativeSystemCall.ts,
 * decision 0038): the same storage writes and output the bytecode would make, without an EVM frame (they were 1.8-2.2
 * ms of a one-transfer dev block's execution). Any other code, and a request queue that is not empty, runs on the EVM.
 */
import { Address } from '@ethereumjs/util';
import { isForkActive, type Fork } from '../../chain/forks.ts';
import type { Header } from '../../chain/header/index.ts';
import { hexToBytes } from '../../primitives/hex.ts';
import { hasCode } from '../../state/account.ts';
import type { JournaledState } from '../../state/journaledState.ts';
import type { EvmBlock, EvmHost } from '../evmHost.ts';
import { nativeSystemCall } from './nativeSystemCall.ts';

export const SYSTEM_ADDRESS = hexToBytes('0xfffffffffffffffffffffffffffffffffffffffe');
export const BEACON_ROOTS_ADDRESS = hexToBytes('0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02');
export const HISTORY_STORAGE_ADDRESS = hexToBytes('0x0000F90827F1C53a10cb7A02335B175320002935');
export const WITHDRAWAL_REQUESTS_ADDRESS = hexToBytes('0x00000961Ef480Eb55e80D19ad83579A64c007002');
export const CONSOLIDATION_REQUESTS_ADDRESS = hexToBytes('0x0000BBdDc7CE488642fb579F8B00f3a590007251');
const SYSTEM_CALL_GAS = 30_000_000n;

/** Runs one system call; returns its output (empty when the contract has no code). */
export async function systemCall(
  host: EvmHost,
  block: EvmBlock,
  state: JournaledState,
  to: Uint8Array,
  data: Uint8Array,
): Promise<Uint8Array> {
  const target = state.getAccount(to);
  if (target === undefined || !hasCode(target)) return new Uint8Array(0);
  return nativeSystemCall(state, to, target, data, block.header) ?? evmSystemCall(host, block, state, to, data);
}

/** The system call on the EVM, whatever the code (`systemCall` takes the native path where it may; tests compare both). */
export async function evmSystemCall(
  host: EvmHost,
  block: EvmBlock,
  state: JournaledState,
  to: Uint8Array,
  data: Uint8Array,
): Promise<Uint8Array> {
  const before = state.getAccount(SYSTEM_ADDRESS);
  const evm = host.evm;
  await evm.journal.cleanup();
  await evm.journal.checkpoint();
  try {
    evm.transientStorage.clear();
    const result = await evm.runCall({
      block,
      caller: new Address(SYSTEM_ADDRESS),
      origin: new Address(SYSTEM_ADDRESS),
      to: new Address(to),
      data,
      gasLimit: SYSTEM_CALL_GAS,
      gasPrice: 0n,
      value: 0n,
      skipNonceIncrement: true,
    });
    await evm.journal.cleanup();
    await evm.journal.commit();
    state.putAccount(SYSTEM_ADDRESS, before ?? null);
    return result.execResult.exceptionError === undefined ? result.execResult.returnValue : new Uint8Array(0);
  } catch (err) {
    await evm.journal.revert();
    throw err;
  } finally {
    evm.journal.cleanJournal();
    state.clearOriginalStorage();
  }
}

/**
 * The system calls before a block's transactions (EIP-4788 from Cancun, EIP-2935 from Prague). Block execution,
 * tracing and eth_simulateV1 all run them, so a transaction reads the same beacon roots and block hashes in each.
 */
export async function preBlockSystemCalls(
  host: EvmHost,
  block: EvmBlock,
  state: JournaledState,
  fork: Fork,
  header: Pick<Header, 'number' | 'parentHash' | 'parentBeaconBlockRoot'>,
): Promise<void> {
  if (isForkActive(fork, 'Cancun') && header.parentBeaconBlockRoot !== undefined) {
    await systemCall(host, block, state, BEACON_ROOTS_ADDRESS, header.parentBeaconBlockRoot);
  }
  if (isForkActive(fork, 'Prague') && header.number > 0n) await systemCall(host, block, state, HISTORY_STORAGE_ADDRESS, header.parentHash);
}
