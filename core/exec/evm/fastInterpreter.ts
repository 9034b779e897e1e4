/**
 * Opt-in speed-ups for @ethereumjs/evm, per EVM instance (decision 0027). Measured on the ERC-20 bench, the
 * library spends most of a transfer's CPU around the opcodes rather than in them: a promise per opcode, the jump
 * analysis redone per call frame, `Common.isActivatedEIP` (a linear scan of ~60 EIPs) several times per step, a
 * fresh 8 KiB memory buffer and a ~45-field snapshot per frame, a slow two-spread copy of each call's message.
 * `enableFastInterpreter(evm)` replaces those for one EVM: the main loop (fastLoop.ts), the frame runner
 * (runFrame.ts), the call-frame entry (executeCall.ts), the EIP lookup, and the word conversions of
 * MLOAD/MSTORE plus promise-free memory gas for MLOAD/MSTORE/MSTORE8 (wordOps.ts), promise-free SLOAD/SSTORE
 * (storageOps.ts), KECCAK256/CALLDATALOAD/CALLER/LOG/RETURN/STOP without the helpers or a throw (dataOps.ts), and
 * the Journal's warm-set keys through the native hex encoder (journalKeys.ts).
 * Every other gas and opcode handler is still the library's.
 *
 * Frames the fast loop does not cover (EOF code, tracing `step` listeners, debug mode, the profiler, Verkle and
 * binary-tree witnesses) run the library's own loop. With any @ethereumjs/evm version other than the pinned one,
 * nothing is replaced and `enableFastInterpreter` says why.
 */
import type { EVM } from '@ethereumjs/evm';
import { fastLoopApplies, fastRun, type StepHook, type StepWatch } from './fastLoop.ts';
import {
  type CommonLike,
  type EvmLibraryInternals,
  type InterpreterInternals,
  type JumpAnalysis,
  loadEvmInternals,
  type OpcodeEntry,
} from './internals.ts';
import { makeExecuteCall } from './executeCall.ts';
import { makeRunFrame } from './runFrame.ts';
import { installStackOps } from './stackOps.ts';
import { installStorageOps } from './storageOps.ts';
import { installDataOps } from './dataOps.ts';
import { installJournalKeys } from './journalKeys.ts';
import { installSyncMemoryGas, installWordOps } from './wordOps.ts';

export { FAST_INTERPRETER_EVM_VERSION } from './internals.ts';
export type { StepHook, StepWatch } from './fastLoop.ts';

/** EVMs on the fast paths. */
const enabled = new WeakSet<object>();
/**
 * Jump analyses per opcode table, keyed by the code array (the state layer hands out one array per code hash). An
 * analysis holds its table's entries; a tracer swaps in a table of its own (trace/hooks.ts), whose analyses stay with
 * it while the EVM's own table keeps its analyses for the untraced jobs.
 */
const analyses = new WeakMap<object, WeakMap<Uint8Array, JumpAnalysis>>();

function analysesOf(table: object): WeakMap<Uint8Array, JumpAnalysis> {
  let cache = analyses.get(table);
  if (cache === undefined) {
    cache = new WeakMap();
    analyses.set(table, cache);
  }
  return cache;
}
const fastCommons = new WeakSet<object>();
const watches = new WeakMap<object, StepWatch>();
const stepHooks = new WeakMap<object, StepHook>();

function installLoop(lib: EvmLibraryInternals): void {
  const proto = lib.interpreterProto;
  const libraryRun = proto.run;
  proto.run = function run(this: InterpreterInternals, code: Uint8Array, opts: { pc?: number } = {}) {
    if (!enabled.has(this._evm) || !fastLoopApplies(this, code, opts)) return libraryRun.call(this, code, opts);
    return fastRun(this, code, analysesOf(this._evm._opcodeMap), watches.get(this._evm), stepHooks.get(this._evm));
  };
}

/**
 * Replaces `isActivatedEIP` on `common` with a Set lookup. Common replaces its `_activatedEIPsCache` array whenever
 * the hardfork or EIP list changes, so the Set is rebuilt whenever that array is no longer the one it came from.
 */
function fastEipLookup(common: CommonLike): void {
  if (fastCommons.has(common) || !Array.isArray(common._activatedEIPsCache)) return;
  fastCommons.add(common);
  let source: number[] | undefined;
  let active = new Set<number>();
  common.isActivatedEIP = (eip: number): boolean => {
    const current = common._activatedEIPsCache as number[];
    if (current !== source) {
      source = current;
      active = new Set(current);
    }
    return active.has(eip);
  };
}

const lib = await loadEvmInternals();
if (typeof lib !== 'string') installLoop(lib);
const runFrame = typeof lib === 'string' ? undefined : makeRunFrame(lib);
/** The call-frame entry without the message copy (executeCall.ts), made from the first EVM's prototype. */
let executeCall: ReturnType<typeof makeExecuteCall> | undefined;

/** Whether `enableFastInterpreter` took effect, and why not when it did not. */
export interface FastInterpreterStatus {
  enabled: boolean;
  reason?: string;
}

/**
 * Opts `evm` into the fast paths. When this @ethereumjs/evm is not the version they were written against, the EVM
 * keeps the library's code (correct, only slower) and the reason is returned.
 */
export function enableFastInterpreter(evm: EVM): FastInterpreterStatus {
  if (typeof lib === 'string' || runFrame === undefined) return { enabled: false, reason: lib as string };
  fastEipLookup((evm as unknown as { common: CommonLike }).common);
  enabled.add(evm);
  const internals = evm as unknown as { _opcodeMap: OpcodeEntry[]; common: CommonLike };
  installWordOps(internals._opcodeMap);
  installStackOps(internals._opcodeMap, internals.common);
  installSyncMemoryGas(internals._opcodeMap, internals.common);
  installStorageOps(internals._opcodeMap, internals.common);
  installDataOps(internals._opcodeMap);
  installJournalKeys((evm as unknown as { journal: unknown }).journal);
  (evm as unknown as { runInterpreter: unknown }).runInterpreter = runFrame;
  const calls = evm as unknown as { _executeCall: Parameters<typeof makeExecuteCall>[0] };
  executeCall ??= makeExecuteCall(calls._executeCall, runFrame);
  calls._executeCall = executeCall;
  return { enabled: true };
}

/**
 * Sets (or with `undefined` removes) `evm`'s per-opcode tracing hook on the fast loop: tracers that need every
 * opcode (the struct logger) get it without a `step` listener, which would send every frame to the library's loop.
 */
export function setStepHook(evm: EVM, hook: StepHook | undefined): void {
  if (hook === undefined) stepHooks.delete(evm);
  else stepHooks.set(evm, hook);
}

/** Sets (or removes) `evm`'s step watch directly; returns the one it replaces. Fast loop only. */
export function setStepWatch(evm: EVM, watch: StepWatch | undefined): StepWatch | undefined {
  const before = watches.get(evm);
  if (watch === undefined) watches.delete(evm);
  else watches.set(evm, watch);
  return before;
}

/** Whether `evm` runs on the fast paths. */
export function isFastInterpreter(evm: EVM): boolean {
  return enabled.has(evm);
}

/**
 * Calls `check` every `every` executed opcodes of `evm` (on either loop); `check` stops execution by throwing.
 * eth_call's timeout uses it: a `step` listener would send every frame to the library's slower loop.
 */
export function watchSteps(evm: EVM, every: number, check: () => void): void {
  // In debug mode (DEBUG=ethjs) every frame runs the library's loop, which only a step listener can watch.
  if (isFastInterpreter(evm) && !evm.DEBUG) {
    watches.set(evm, { every, check, count: 0 });
    return;
  }
  let steps = 0;
  evm.events.on('step', () => {
    if (++steps % every === 0) check();
  });
}
