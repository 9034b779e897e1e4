/**
 * The parts of @ethereumjs/evm that its `exports` map does not publish but the fast interpreter (decision 0027)
 * needs: the `Interpreter` prototype and the `Memory` and `Stack` classes, taken from a live probe EVM, and only for
 * the exact version the fast paths were written against; any other version yields a reason and the library's own
 * code runs instead.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Common, Hardfork, Mainnet, type StateManagerInterface } from '@ethereumjs/common';
import { EVM } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';

/** The @ethereumjs/evm version whose internals the fast paths were written against (pinned in package.json). */
export const FAST_INTERPRETER_EVM_VERSION = '10.1.3';

/** `OpcodeInfo` fields the loop reads. */
export interface OpcodeInfo {
  code: number;
  /** With the push/dup/swap size (PUSH1), as the library's `step` event and geth's struct logger name it. */
  fullName: string;
  feeBigInt: bigint;
  dynamicGas: boolean;
  isAsync: boolean;
  isInvalid: boolean;
}

/** One entry of `EVM._opcodeMap`. */
export interface OpcodeEntry {
  opcodeInfo: OpcodeInfo;
  opHandler: (runState: RunState, common: unknown) => unknown;
  gasHandler: (runState: RunState, gas: bigint, common: unknown) => Promise<bigint>;
  /**
   * Ours (wordOps.ts, storageOps.ts): the same gas rule as `gasHandler`, without a promise; the fast loop prefers
   * it. Undefined (having done nothing) where only `gasHandler` applies to this frame.
   */
  syncGasHandler?: (runState: RunState, gas: bigint) => bigint | undefined;
}

/** Result of `Interpreter._getValidJumpDestinations`. */
export interface JumpAnalysis {
  jumps: Uint8Array;
  pushes: Record<number, bigint>;
  opcodesCached: OpcodeEntry[];
  /** Ours (fastLoop.ts): per pc, the static gas the loop may charge lazily, or -1. */
  lazyFees?: Int32Array;
  /** Ours (inlineRun.ts): per pc, the inner loop's fee and kind, or 0. */
  inlineWords?: Int32Array;
  /** Ours (fastLoop.ts): per pc of a PUSH fused with the JUMP/JUMPI after it, the destination, or -1. */
  jumpTargets?: Int32Array;
  /** Ours (blockCompile.ts): per block entry pc, its straight-line block. */
  blocks?: unknown[];
}

/** The interpreter's `RunState` fields the fast paths touch. */
export interface RunState {
  programCounter: number;
  opCode: number;
  code: Uint8Array;
  validJumps: Uint8Array;
  cachedPushes: Record<number, bigint>;
  shouldDoJumpAnalysis: boolean;
  gasLeft: bigint;
  gasRefund: bigint;
  memoryWordCount: bigint;
  highestMemCost: bigint;
  stateGasSpilled: bigint;
  memory: MemoryLike;
  env: { accessWitness?: { commit(): void; revert(): void }; chargeCodeAccesses?: boolean };
  eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean;
}

/** `Memory`: a byte store that grows in 8 KiB steps. */
export interface MemoryLike {
  _store: Uint8Array;
}

/** `Common` as the fast paths use it. */
export interface CommonLike {
  isActivatedEIP(eip: number): boolean;
  param(name: string): bigint;
  consensusType(): string;
  _activatedEIPsCache?: number[];
}

/** `EVM` fields the fast paths read. */
export interface EvmInternals {
  DEBUG: boolean;
  events: { listenerCount(name: string): number };
  common: CommonLike;
  stateManager: { getAccount(a: Address): Promise<unknown> };
  blockchain: unknown;
  journal: unknown;
  performanceLogger: unknown;
  _opcodeMap: OpcodeEntry[];
  _optsCached: { profiler?: { enabled?: boolean }; cliqueSigner?: unknown };
  _tx: { gasPrice: bigint; origin?: Address };
  _block?: unknown;
}

/** An `Interpreter` instance. */
export interface InterpreterInternals {
  _evm: EvmInternals;
  _runState: RunState;
  _env: Record<string, unknown>;
  _result: Record<string, unknown>;
  common: CommonLike;
  useGas(amount: bigint, context?: unknown): void;
  _getValidJumpDestinations(code: Uint8Array): JumpAnalysis;
  run(code: Uint8Array, opts?: { pc?: number }): Promise<RunResult>;
}

/** What `Interpreter.run` resolves to. */
export interface RunResult {
  runState: RunState;
  exceptionError: unknown;
}

/** The loaded internals. */
export interface EvmLibraryInternals {
  interpreterProto: InterpreterInternals;
  Memory: new () => MemoryLike;
  Stack: new () => unknown;
}

/** A state manager with nothing in it: enough for the probe's one STOP. */
function emptyStateManager(): Record<string, unknown> {
  const none = async (): Promise<undefined> => undefined;
  const empty = async (): Promise<Uint8Array> => new Uint8Array(0);
  const sm: Record<string, unknown> = {
    originalStorageCache: { get: empty, clear: () => undefined },
    getAccount: none,
    putAccount: none,
    deleteAccount: none,
    modifyAccountFields: none,
    putCode: none,
    getCode: empty,
    getCodeSize: async () => 0,
    getStorage: empty,
    putStorage: none,
    clearStorage: none,
    checkpoint: none,
    commit: none,
    revert: none,
    getStateRoot: async () => new Uint8Array(32),
    setStateRoot: none,
    hasStateRoot: async () => false,
    clearCaches: () => undefined,
  };
  sm.shallowCopy = () => sm;
  return sm;
}

/**
 * Finds the classes by running one STOP on a probe EVM and looking at the run state its STOP handler receives.
 * Taking them from a live instance (rather than importing the library's dist files) gives the very classes the
 * node's EVMs use, bundled (decision 0022) or not. The version comes from the installed package.json, which is what
 * the bundle was built from.
 */
export async function loadEvmInternals(): Promise<EvmLibraryInternals | string> {
  try {
    const require = createRequire(import.meta.url);
    const root = dirname(dirname(dirname(require.resolve('@ethereumjs/evm'))));
    const pkg = require(join(root, 'package.json')) as { version?: string };
    if (pkg.version !== FAST_INTERPRETER_EVM_VERSION) return `@ethereumjs/evm ${pkg.version} is not ${FAST_INTERPRETER_EVM_VERSION}`;
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Shanghai });
    const probe = new EVM({ common, stateManager: emptyStateManager() as unknown as StateManagerInterface });
    const stop = (probe as unknown as { _opcodeMap: OpcodeEntry[] })._opcodeMap[0x00];
    if (stop === undefined || typeof stop.opHandler !== 'function') return 'opcode table not found';
    let seen: (RunState & { interpreter?: unknown; stack?: unknown }) | undefined;
    const original = stop.opHandler;
    stop.opHandler = (rs, common) => {
      seen = rs as RunState & { interpreter?: unknown; stack?: unknown };
      return original(rs, common);
    };
    await probe.runCode({ code: Uint8Array.of(0x00), gasLimit: 100n });
    const proto = seen?.interpreter === undefined ? undefined : (Object.getPrototypeOf(seen.interpreter) as InterpreterInternals);
    if (
      proto === undefined ||
      typeof proto.run !== 'function' ||
      typeof proto._getValidJumpDestinations !== 'function' ||
      typeof proto.useGas !== 'function'
    ) {
      return 'Interpreter internals not found';
    }
    const Memory = (seen?.memory as object | undefined)?.constructor as (new () => MemoryLike) | undefined;
    const Stack = (seen?.stack as object | undefined)?.constructor as (new () => unknown) | undefined;
    if (typeof Memory !== 'function' || typeof Stack !== 'function') return 'Memory/Stack not found';
    return { interpreterProto: proto, Memory, Stack };
  } catch (err) {
    return `internals not found: ${(err as Error).message}`;
  }
}
