/**
 * The parts of @ethereumjs/evm that its `exports` map does not publish but the fast interpreter (decision 0027)
 * needs: the `Interpreter` class, `Memory` and `Stack`, `defaultBlock` and the EIP-7928 step hook. They are loaded
 * from the library's own ESM dist files (the same module instances `EVM` uses) and only for the exact version the
 * fast paths were written against; any other version yields a reason and the library's own code runs instead.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Address } from '@ethereumjs/util';

/** The @ethereumjs/evm version whose internals the fast paths were written against (pinned in package.json). */
export const FAST_INTERPRETER_EVM_VERSION = '10.1.3';

/** `OpcodeInfo` fields the loop reads. */
export interface OpcodeInfo {
  code: number;
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
}

/** Result of `Interpreter._getValidJumpDestinations`. */
export interface JumpAnalysis {
  jumps: Uint8Array;
  pushes: Record<number, bigint>;
  opcodesCached: OpcodeEntry[];
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
  stateGasSpilled: bigint;
  memory: MemoryLike;
  env: { accessWitness?: { commit(): void; revert(): void }; chargeCodeAccesses?: boolean };
  eip7928PostTargetCallOog?: unknown;
  eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean;
}

/** `Memory`: a byte store that grows in 8 KiB steps. */
export interface MemoryLike {
  _store: Uint8Array;
}

/** `Common` as the fast paths use it. */
export interface CommonLike {
  isActivatedEIP(eip: number): boolean;
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
  defaultBlock: () => unknown;
  consumeEip7928PostTargetCallOog: (rs: RunState) => void;
}

async function importDist(esm: string, file: string): Promise<Record<string, unknown>> {
  return (await import(pathToFileURL(join(esm, file)).href)) as Record<string, unknown>;
}

/** Loads the internals, or returns why they cannot be used. */
export async function loadEvmInternals(): Promise<EvmLibraryInternals | string> {
  try {
    const require = createRequire(import.meta.url);
    const root = dirname(dirname(dirname(require.resolve('@ethereumjs/evm'))));
    const pkg = require(join(root, 'package.json')) as { version?: string };
    if (pkg.version !== FAST_INTERPRETER_EVM_VERSION) return `@ethereumjs/evm ${pkg.version} is not ${FAST_INTERPRETER_EVM_VERSION}`;
    const esm = join(root, 'dist', 'esm');
    const [interp, memory, stack, evm, eip7928] = await Promise.all(
      ['interpreter.js', 'memory.js', 'stack.js', 'evm.js', join('opcodes', 'EIP7928.js')].map((f) => importDist(esm, f)),
    );
    const Interpreter = interp?.Interpreter as { prototype: InterpreterInternals } | undefined;
    const proto = Interpreter?.prototype;
    if (proto === undefined || typeof proto.run !== 'function' || typeof proto._getValidJumpDestinations !== 'function') {
      return 'Interpreter internals not found';
    }
    if (typeof memory?.Memory !== 'function' || typeof stack?.Stack !== 'function') return 'Memory/Stack not found';
    if (typeof evm?.defaultBlock !== 'function') return 'defaultBlock not found';
    if (typeof eip7928?.consumeEip7928PostTargetCallOog !== 'function') return 'consumeEip7928PostTargetCallOog not found';
    return {
      interpreterProto: proto,
      Memory: memory.Memory as new () => MemoryLike,
      Stack: stack.Stack as new () => unknown,
      defaultBlock: evm.defaultBlock as () => unknown,
      consumeEip7928PostTargetCallOog: eip7928.consumeEip7928PostTargetCallOog as (rs: RunState) => void,
    };
  } catch (err) {
    return `internals failed to load: ${(err as Error).message}`;
  }
}
