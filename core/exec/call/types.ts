/**
 * Inputs and outputs of the RPC-facing execution entry points (eth_call, eth_estimateGas, eth_createAccessList).
 * The RPC layer parses JSON into `CallRequest`, picks the block, and maps `CallError` codes to JSON-RPC errors.
 */
import type { ChainConfig } from '../../chain/forks.ts';
import type { Header } from '../../chain/header/index.ts';
import { XoneError } from '../../errors.ts';
import type { StateReader } from '../../state/interface.ts';
import type { EvmHostPool } from '../evmHostPool.ts';
import type { StateOverrideSet } from './stateOverrides.ts';
import type { AccessListItem, Authorization } from '../../chain/transaction/index.ts';

/** A call as eth_call takes it; every field optional as in the JSON-RPC spec. */
export interface CallRequest {
  from?: Uint8Array;
  /** Absent = contract creation. */
  to?: Uint8Array;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  accessList?: AccessListItem[];
  /** EIP-7702: makes the call a set-code message (type 4). */
  authorizationList?: Authorization[];
  /** EIP-4844: makes the call a blob message (type 3); BLOBHASH reads these. */
  blobVersionedHashes?: Uint8Array[];
  /** The blob fee cap; absent or 0 runs the call at a blob base fee of 0, as geth's eth_call. */
  maxFeePerBlobGas?: bigint;
  nonce?: bigint;
}

/** Something that can tell a running call to stop: an AbortSignal, or a flag another thread sets in shared memory. */
export interface Interrupt {
  readonly aborted: boolean;
}

/** Limits of one call. */
export interface CallOptions {
  /** Upper bound of the gas a call may use (geth's --rpc.gascap). */
  gasCap?: bigint;
  /**
   * Wall-clock budget in ms of the whole request (every run of an estimateGas bisection shares it); the EVM stops
   * with CALL_TIMEOUT past it.
   */
  timeoutMs?: number;
  /**
   * The same budget as an absolute `performance.now()` time; wins over `timeoutMs`. Set by call/estimateGas/
   * createAccessList once, so their repeated runs share one budget.
   */
  deadline?: number;
  /** Checked with the clock (every 1,024 EVM steps): once `aborted`, the EVM stops with CALL_INTERRUPTED. */
  interrupt?: Interrupt;
  /** geth's state overrides (eth_call / eth_estimateGas third parameter), applied to each run's own state. */
  overrides?: StateOverrideSet;
  /** The thread's idle EVMs to borrow from (a new EVM per run without it). */
  hosts?: EvmHostPool;
}

/** Defaults of `CallOptions`: gas cap 50,000,000, timeout 5 s. */
export const defaultCallOptions = { gasCap: 50_000_000n, timeoutMs: 5_000 } as const;

/** The state and block a call runs against. */
export interface CallEnvironment {
  /** State after `header`'s block (e.g. HistoricalState for a number, the head's state for latest). */
  state: StateReader;
  header: Header;
  config: ChainConfig;
  /** Canonical hash by number, for BLOCKHASH. */
  blockHash(number: bigint): Uint8Array | undefined;
}

/** Outcome of eth_call. */
export interface CallResult {
  /** Return data, or the revert data when `reverted`. */
  returnData: Uint8Array;
  gasUsed: bigint;
  /** True when execution ended with REVERT. */
  reverted: boolean;
  /** EVM error text of a failed call (revert, out of gas, invalid opcode, …). */
  error?: string;
}

/** CALL_FAILED: an EVM failure other than revert that no gas limit cures (its message is the EVM's error text). */
export type CallErrorCode =
  'CALL_TIMEOUT' | 'CALL_INTERRUPTED' | 'CALL_INVALID' | 'CALL_REVERTED' | 'CALL_GAS_EXCEEDS_ALLOWANCE' | 'CALL_FAILED';

/**
 * A call that could not produce a result; `meta.data` holds revert bytes for CALL_REVERTED, `meta.timeoutMs` the
 * budget for CALL_TIMEOUT (whose message is geth's: "execution aborted (timeout = 5s)").
 */
export class CallError extends XoneError<CallErrorCode> {}
