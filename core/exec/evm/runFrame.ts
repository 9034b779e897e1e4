/**
 * `EVM.runInterpreter` (one call frame) for EVMs on the fast interpreter (decision 0027). Same steps and result as
 * the library's, minus two per-frame costs measured on the ERC-20 bench: a fresh 8 KiB zeroed `Memory` buffer per
 * frame (taken here from a pool and zeroed on return), and the `runState` snapshot the library spreads together
 * from the run state, the result and the environment (~45 fields, read by nothing in this node; left out, as
 * `ExecResult.runState` is optional).
 */
import { EVMError } from '@ethereumjs/evm';
import { Account, type Address, createZeroAddress, EthereumJSErrorWithoutCode } from '@ethereumjs/util';
import type { EvmInternals, EvmLibraryInternals, InterpreterInternals, MemoryLike } from './internals.ts';

const ZERO_ADDRESS = createZeroAddress();
const REVERT = EVMError.errorMessages.REVERT;
const INVALID_EOF = EVMError.errorMessages.INVALID_EOF_FORMAT;
const INVALID_OPCODE = EVMError.errorMessages.INVALID_OPCODE;
/** The library's initial memory size; only buffers of exactly this size go back to the pool. */
const MEMORY_CHUNK = 8192;
const POOL_LIMIT = 64;

/** The library's `defaultBlock()` (block context of a message run without one; `runCall` always sets one). */
function defaultBlock(): unknown {
  return {
    header: {
      number: 0n,
      coinbase: createZeroAddress(),
      timestamp: 0n,
      difficulty: 0n,
      prevRandao: new Uint8Array(32),
      gasLimit: 0n,
      baseFeePerGas: undefined,
      slotNumber: 0n,
      getBlobGasPrice: () => undefined,
    },
  };
}

/** The message fields a frame reads (ethereumjs `Message` after `_executeCall` spread it). */
interface FrameMessage {
  to?: Address;
  caller?: Address;
  data?: Uint8Array;
  value?: bigint;
  code: Uint8Array;
  isStatic?: boolean;
  isCreate?: boolean;
  depth?: number;
  codeAddress: Address;
  gasRefund: bigint;
  gasLimit: bigint;
  chargeCodeAccesses?: boolean;
  blobVersionedHashes?: Uint8Array[];
  accessWitness?: { commit(): void };
  createdAddresses?: Set<string>;
  selfdestruct?: Map<string, Uint8Array>;
}

/** What the interpreter collects for a frame's result (`Interpreter._result`). */
interface FrameResult {
  logs: unknown[];
  returnValue: Uint8Array | undefined;
  selfdestruct: Map<string, Uint8Array>;
  createdAddresses?: Set<string>;
}

/** Builds the `runInterpreter` replacement for one loaded library. */
export function makeRunFrame(
  lib: EvmLibraryInternals,
): (this: EvmInternals, message: FrameMessage, opts?: { initialLogs?: unknown[] }) => Promise<unknown> {
  const pool: Uint8Array[] = [];

  /** The library's `Interpreter` constructor, with the memory buffer taken from the pool. */
  function newInterpreter(
    evm: EvmInternals,
    env: Record<string, unknown> & { gasRefund: bigint; initialLogs?: unknown[] },
    gasLeft: bigint,
  ): InterpreterInternals {
    const interp = Object.create(lib.interpreterProto) as InterpreterInternals & Record<string, unknown>;
    interp.opDebuggers = {};
    interp._evm = evm;
    interp._stateManager = evm.stateManager;
    interp.common = evm.common;
    if (evm.common.consensusType() === 'poa' && evm._optsCached.cliqueSigner === undefined) {
      throw EthereumJSErrorWithoutCode('Must include cliqueSigner function if clique/poa is being used for consensus type');
    }
    // The library's Memory constructor allocates a zeroed 8 KiB buffer; a pooled one is already zeroed.
    const memory = Object.create(lib.Memory.prototype as object) as MemoryLike;
    memory._store = pool.pop() ?? new Uint8Array(MEMORY_CHUNK);
    interp._runState = {
      programCounter: 0,
      opCode: 0xfe,
      memory,
      memoryWordCount: 0n,
      highestMemCost: 0n,
      stack: new lib.Stack(),
      code: new Uint8Array(0),
      validJumps: Uint8Array.from([]),
      cachedPushes: {},
      stateManager: evm.stateManager,
      blockchain: evm.blockchain,
      env,
      shouldDoJumpAnalysis: true,
      interpreter: interp,
      gasRefund: env.gasRefund,
      gasLeft,
      stateGasSpilled: 0n,
      returnBytes: new Uint8Array(0),
    } as unknown as InterpreterInternals['_runState'];
    interp.journal = evm.journal;
    interp._env = env;
    interp._result = { logs: env.initialLogs ? [...env.initialLogs] : [], returnValue: undefined, selfdestruct: new Map() };
    interp.profilerOpts = evm._optsCached.profiler;
    interp.performanceLogger = evm.performanceLogger;
    return interp;
  }

  /** Zeroes a frame's memory and keeps it for the next frame (RETURN, REVERT and LOG copy out of memory). */
  function release(memory: MemoryLike): void {
    const store = memory._store;
    if (store.length !== MEMORY_CHUNK || pool.length >= POOL_LIMIT) return;
    store.fill(0);
    pool.push(store);
  }

  return async function runInterpreter(
    this: EvmInternals,
    message: FrameMessage,
    opts: { initialLogs?: unknown[] } = {},
  ): Promise<unknown> {
    const contract = ((await this.stateManager.getAccount(message.to ?? ZERO_ADDRESS)) as Account | undefined) ?? new Account();
    const env = {
      address: message.to ?? ZERO_ADDRESS,
      caller: message.caller ?? ZERO_ADDRESS,
      callData: message.data ?? Uint8Array.from([0]),
      callValue: message.value ?? 0n,
      code: message.code,
      isStatic: message.isStatic ?? false,
      isCreate: message.isCreate ?? false,
      depth: message.depth ?? 0,
      gasPrice: this._tx.gasPrice,
      origin: this._tx.origin ?? message.caller ?? ZERO_ADDRESS,
      block: this._block ?? defaultBlock(),
      contract,
      codeAddress: message.codeAddress,
      gasRefund: message.gasRefund,
      chargeCodeAccesses: message.chargeCodeAccesses,
      blobVersionedHashes: message.blobVersionedHashes ?? [],
      accessWitness: message.accessWitness,
      createdAddresses: message.createdAddresses,
      initialLogs: opts.initialLogs,
    };
    const interpreter = newInterpreter(this, env, message.gasLimit);
    if (message.selfdestruct) interpreter._result.selfdestruct = message.selfdestruct;
    if (message.createdAddresses) interpreter._result.createdAddresses = message.createdAddresses;
    const res = await interpreter.run(message.code, opts as { pc?: number });
    const runState = res.runState;
    const result = interpreter._result as unknown as FrameResult;
    let gasUsed = message.gasLimit - runState.gasLeft;
    const error = res.exceptionError as { error?: string } | undefined;
    if (error && error.error !== REVERT && error.error !== INVALID_EOF) gasUsed = message.gasLimit;
    message.accessWitness?.commit();
    // The library spreads the result into the answer (`{ ...result, ... }`: V8's slow copy, ~5 % of a 200-call
    // trace); the interpreter's result has these four fields only (interpreter.ts sets nothing else on `_result`).
    const out: Record<string, unknown> = {
      logs: error ? [] : result.logs,
      returnValue: result.returnValue ?? new Uint8Array(0),
      selfdestruct: error ? new Map() : result.selfdestruct,
      createdAddresses: error ? new Set() : result.createdAddresses,
      exceptionError: res.exceptionError,
      gas: runState.gasLeft,
      executionGasUsed: gasUsed,
      gasRefund: runState.gasRefund,
      stateGasSpilled: runState.stateGasSpilled,
    };
    // `runState` (optional in ExecResult) is left out: the library builds it by spreading the run state, the result
    // and the environment together (~45 fields per frame). Only an invalid opcode keeps its byte, for the message
    // that names the opcode and its fork (invalidOpcode.ts).
    if (error?.error === INVALID_OPCODE) out.runState = { opCode: runState.code[runState.programCounter] };
    release(runState.memory);
    return out;
  };
}
