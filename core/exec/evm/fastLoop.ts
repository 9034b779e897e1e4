/**
 * The interpreter's main loop without a promise per opcode (decision 0027). The library's `Interpreter.run` awaits
 * an async `runStep` for every opcode; this loop awaits only the handlers that are async (dynamic gas, state
 * access), and takes the jump-destination analysis from a per-EVM cache keyed by the code array. The opcode and
 * gas handlers are the library's own, called in the same order as `runStep` calls them.
 */
import { EVMError } from '@ethereumjs/evm';
import type { InterpreterInternals, JumpAnalysis, OpcodeEntry, RunResult } from './internals.ts';
import { InlineFrame, inlinePlan, runInline } from './inlineRun.ts';
import type { Block } from './blockCompile.ts';

const STOP = EVMError.errorMessages.STOP;
const OUT_OF_GAS = EVMError.errorMessages.OUT_OF_GAS;
const INVALID_OPCODE = EVMError.errorMessages.INVALID_OPCODE;

interface StackArray {
  _store: bigint[];
  _len: number;
  _maxHeight: number;
}

/**
 * Ops whose handlers (ours in stackOps.ts, or the library's) neither read nor charge gas and never await: arithmetic,
 * comparison and bitwise ops, POP, JUMP, JUMPI, PC, JUMPDEST, PUSH0-32, DUP1-16, SWAP1-16. The loop may charge their
 * static gas lazily. (Not GAS, calls, memory or storage ops, nor any op with dynamic gas.)
 */
const PURE = new Uint8Array(256);
for (const code of [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0b]) PURE[code] = 1;
for (let code = 0x10; code <= 0x1d; code++) PURE[code] = 1;
for (const code of [0x50, 0x56, 0x57, 0x58, 0x5b]) PURE[code] = 1;
for (let code = 0x5f; code <= 0x9f; code++) PURE[code] = 1;
/** CREATE, CALL, CALLCODE, DELEGATECALL, CREATE2, STATICCALL. */
const CALLS = new Uint8Array(256);
for (const code of [0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa]) CALLS[code] = 1;

const SAFE_GAS = BigInt(Number.MAX_SAFE_INTEGER);

/** Per pc: the static gas of a pure op there (a number), or -1 where the loop must take the exact path. */
function lazyFees(ops: OpcodeEntry[]): Int32Array {
  const fees = new Int32Array(ops.length).fill(-1);
  for (let pc = 0; pc < ops.length; pc++) {
    const info = ops[pc]?.opcodeInfo; // push data has no entry
    if (info !== undefined && PURE[info.code] === 1 && !info.dynamicGas && !info.isInvalid && !info.isAsync)
      fees[pc] = Number(info.feeBigInt);
  }
  return fees;
}

function isEvmError(e: unknown): e is { error?: string } {
  return typeof e === 'object' && e !== null && (e as { errorType?: string }).errorType === 'EVMError';
}

/** Whether the fast loop may run this frame; everything else keeps the library's loop. */
export function fastLoopApplies(interp: InterpreterInternals, code: Uint8Array, opts: { pc?: number }): boolean {
  const evm = interp._evm;
  return !(
    code[0] === 0xef || // EOF container (or the 0xEF invalid-opcode path the library handles)
    opts.pc !== undefined ||
    evm.DEBUG ||
    evm._optsCached.profiler?.enabled === true ||
    evm.events.listenerCount('step') > 0 ||
    interp.common.isActivatedEIP(7928) || // block-level access lists add a post-call hook to every step
    (interp._runState.env.chargeCodeAccesses === true && (interp.common.isActivatedEIP(6800) || interp.common.isActivatedEIP(7864)))
  );
}

/**
 * A check run every `every` steps (eth_call's timeout, a trace's deadline); it stops execution by throwing, and may
 * return a promise the loop awaits (a trace run in-thread yields to the event loop that way).
 */
export interface StepWatch {
  every: number;
  check(): void | Promise<void>;
  /** Steps since the last check, carried across frames. */
  count: number;
}

/**
 * A tracer's per-opcode hook: called where the library emits its `step` event (after the dynamic gas is known,
 * before the gas is charged and the op runs; also when the dynamic gas handler fails), with that gas and the memory
 * size before the op. Synchronous: the struct logger reads the run state at once, so nothing is copied for it.
 */
export type StepHook = (interp: InterpreterInternals, info: OpcodeEntry['opcodeInfo'], gas: bigint, memoryWords: bigint) => void;

/** The ops that end a frame: after one, the frame has no implicit STOP to trace. */
const HALTING = new Uint8Array(256);
for (const op of [0x00, 0xf3, 0xfd, 0xfe, 0xff]) HALTING[op] = 1;

/** Bound of the inner loop's gas room and step count (int32 arithmetic). */
const INNER_CAP = 0x3fff_ffff;

/** The gas the lazy path may charge before it must settle: what is left, up to 2^53. */
function budgetOf(gasLeft: bigint): number {
  return gasLeft >= SAFE_GAS ? Number.MAX_SAFE_INTEGER : Number(gasLeft);
}

/**
 * Runs `code` in `interp` to the end of the frame; same result shape as `Interpreter.run`.
 *
 * Runs of stackOps.ts's ops (arithmetic, comparisons, bitwise ops, PUSH, DUP, SWAP, POP, JUMPDEST, JUMP, JUMPI) go
 * to the synchronous inner loop (inlineRun.ts) with the program counter, stack height and lazy gas in locals; this
 * loop runs one op at a time for everything else, with the run state up to date before its handler runs.
 */
export async function fastRun(
  interp: InterpreterInternals,
  code: Uint8Array,
  cache: WeakMap<Uint8Array, JumpAnalysis>,
  watch?: StepWatch,
  hook?: StepHook,
): Promise<RunResult> {
  const rs = interp._runState;
  const common = interp.common;
  rs.code = code;
  let analysis = cache.get(code);
  if (analysis === undefined) {
    analysis = interp._getValidJumpDestinations(code);
    // The library keys the pushed words by pc in a plain object (dictionary mode for sparse integer keys); an
    // array gives PUSH an element load instead of a hash lookup, for the same `pushes[pc]` reads.
    const pushes: bigint[] = new Array<bigint>(code.length);
    for (const [pc, value] of Object.entries(analysis.pushes)) pushes[Number(pc)] = value;
    const fees = lazyFees(analysis.opcodesCached);
    const plan = inlinePlan(code, analysis.opcodesCached, fees, pushes, analysis.jumps);
    analysis = {
      ...analysis,
      pushes: pushes as unknown as Record<number, bigint>,
      lazyFees: fees,
      inlineWords: plan.words,
      jumpTargets: plan.targets,
      blocks: plan.blocks,
    };
    cache.set(code, analysis);
  }
  rs.validJumps = analysis.jumps;
  rs.cachedPushes = analysis.pushes;
  rs.shouldDoJumpAnalysis = false;
  const ops = analysis.opcodesCached;
  const fees = analysis.lazyFees as Int32Array;
  const length = code.length;
  // The frame's stack (one object for the frame's life).
  const stack = (rs as unknown as { stack: StackArray }).stack;
  let err: unknown;
  // Whether an op ended the frame (STOP, RETURN, an error) rather than the code running out.
  let halted = false;
  // Static gas of the "pure" ops, charged as a number and subtracted from the bigint `rs.gasLeft` in one go before
  // anything that can read it (a bigint subtraction per opcode allocates: ~30 % of a loop's time). `budget` bounds
  // `pending` by the gas left (and 2^53), so a pure op never runs out of gas on this path; one that would goes
  // through the exact path after the pending gas is settled. Not while a tracing hook reads the gas at every step.
  let pending = 0;
  let budget = budgetOf(rs.gasLeft);
  const lazy = hook === undefined && rs.env.accessWitness === undefined;
  const inline = lazy
    ? new InlineFrame(
        code,
        stack._store,
        stack._maxHeight,
        analysis.inlineWords as Int32Array,
        analysis.jumpTargets as Int32Array,
        analysis.pushes as unknown as bigint[],
        analysis.jumps,
        analysis.blocks as Array<Block | undefined>,
      )
    : undefined;
  while (rs.programCounter < length) {
    if (inline !== undefined) {
      inline.pc = rs.programCounter;
      inline.len = stack._len;
      // Small integers (V8 keeps the inner loop's arithmetic in int32 registers): the gas room and the steps are
      // capped, and the inner loop returns when either runs out; this loop then carries on (or calls it again).
      inline.used = 0;
      inline.room = Math.min(budget - pending, INNER_CAP);
      inline.steps = watch === undefined ? INNER_CAP : Math.min(watch.every - 1 - watch.count, INNER_CAP);
      try {
        runInline(inline);
      } catch (e) {
        // A stack error of an inline op: the run state as the library's loop leaves it (the op counted).
        rs.programCounter = inline.pc + 1;
        rs.opCode = code[inline.pc] as number;
        stack._len = inline.len;
        pending += inline.used;
        if (pending !== 0) rs.gasLeft -= BigInt(pending);
        pending = 0;
        if (!isEvmError(e)) throw e;
        err = e;
        halted = true;
        break;
      }
      rs.programCounter = inline.pc;
      stack._len = inline.len;
      pending += inline.used;
      if (watch !== undefined) watch.count = watch.every - 1 - inline.steps;
      if (rs.programCounter >= length) break;
    }
    const entry = ops[rs.programCounter] as OpcodeEntry;
    const info = entry.opcodeInfo;
    rs.opCode = info.code;
    // Outside the try, like an error from a library `step` listener: it ends the whole call, not just this frame.
    if (watch !== undefined && ++watch.count >= watch.every) {
      watch.count = 0;
      if (pending !== 0) rs.gasLeft -= BigInt(pending);
      pending = 0;
      const wait = watch.check();
      if (wait !== undefined) await wait;
      budget = budgetOf(rs.gasLeft);
    }
    try {
      const fee = fees[rs.programCounter] as number;
      if (lazy && fee >= 0 && pending + fee <= budget) {
        // A pure op the inner loop did not run (another handler, or an inline one's error path): its handler.
        pending += fee;
        rs.programCounter++;
        entry.opHandler(rs, common);
        continue;
      }
      if (pending !== 0) {
        rs.gasLeft -= BigInt(pending);
        pending = 0;
      }
      let gas = info.feeBigInt;
      if (hook === undefined) {
        if (info.dynamicGas) gas = entry.syncGasHandler?.(rs, gas) ?? (await entry.gasHandler(rs, gas, common));
      } else {
        const memoryWords = rs.memoryWordCount;
        if (info.dynamicGas) {
          try {
            gas = entry.syncGasHandler?.(rs, gas) ?? (await entry.gasHandler(rs, gas, common));
          } catch (e) {
            // The library reports the step of an op whose dynamic gas fails too (runStep), with the static gas.
            if (isEvmError(e)) hook(interp, info, gas, memoryWords);
            throw e;
          }
        }
        hook(interp, info, gas, memoryWords);
        // STOP, RETURN, REVERT, SELFDESTRUCT can end the frame without a throw (their handlers move the pc past the code).
        if (HALTING[info.code] === 1) halted = true;
      }
      if (info.isInvalid) throw new EVMError(INVALID_OPCODE);
      rs.gasLeft -= gas;
      // useGas(0) on a negative balance zeroes it and throws OUT_OF_GAS, exactly as the library's useGas would.
      if (rs.gasLeft < 0n) interp.useGas(0n, info);
      rs.programCounter++;
      // An async op's handler may finish without a promise (storageOps.ts): then there is nothing to wait for.
      const done = entry.opHandler(rs, common);
      if (done !== undefined && info.isAsync) await done;
      // A call can take milliseconds between two steps of this frame (a precompile runs no steps: a loop of pairing
      // checks went 1,024 steps, ~0.3 s, between interrupt checks): the next step checks.
      if (watch !== undefined && CALLS[info.code] === 1) watch.count = watch.every;
      rs.env.accessWitness?.commit();
      // The op may have charged or returned gas (calls): the lazy budget starts again from what is left.
      budget = budgetOf(rs.gasLeft);
    } catch (e) {
      if (pending !== 0) rs.gasLeft -= BigInt(pending);
      pending = 0;
      rs.env.accessWitness?.revert();
      if (!isEvmError(e)) throw e;
      if (e.error !== STOP) err = e;
      halted = true;
      break;
    }
  }
  if (pending !== 0) rs.gasLeft -= BigInt(pending);
  // Code that runs out ends with the STOP its padding holds: geth's and revm's loops run (and trace) that STOP.
  if (hook !== undefined && !halted && length > 0) {
    const stop = interp._evm._opcodeMap[0];
    if (stop !== undefined) hook(interp, stop.opcodeInfo, 0n, rs.memoryWordCount);
  }
  if (err === undefined && rs.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true && rs.gasLeft > 0n) {
    rs.gasLeft = 0n;
    err = new EVMError(OUT_OF_GAS);
  }
  return { runState: rs, exceptionError: err };
}
