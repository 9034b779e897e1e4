/**
 * The interpreter's main loop without a promise per opcode (decision 0027). The library's `Interpreter.run` awaits
 * an async `runStep` for every opcode; this loop awaits only the handlers that are async (dynamic gas, state
 * access), and takes the jump-destination analysis from a per-EVM cache keyed by the code array. The opcode and
 * gas handlers are the library's own, called in the same order as `runStep` calls them.
 */
import { EVMError } from '@ethereumjs/evm';
import type { InterpreterInternals, JumpAnalysis, OpcodeEntry, RunResult } from './internals.ts';
import { dupOp, jumpdestOp, popOp, pushOp, swapOp } from './stackOps.ts';

const STOP = EVMError.errorMessages.STOP;
const OUT_OF_GAS = EVMError.errorMessages.OUT_OF_GAS;
const INVALID_OPCODE = EVMError.errorMessages.INVALID_OPCODE;
const UNDERFLOW = EVMError.errorMessages.STACK_UNDERFLOW;
const OVERFLOW = EVMError.errorMessages.STACK_OVERFLOW;

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

const SAFE_GAS = BigInt(Number.MAX_SAFE_INTEGER);

/** Per pc: the static gas of a pure op there (a number), or -1 where the loop must take the exact path. */
function lazyFees(ops: OpcodeEntry[]): Float64Array {
  const fees = new Float64Array(ops.length).fill(-1);
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

/** Runs `code` in `interp` to the end of the frame; same result shape as `Interpreter.run`. */
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
    analysis = { ...analysis, pushes: pushes as unknown as Record<number, bigint>, lazyFees: lazyFees(analysis.opcodesCached) };
    cache.set(code, analysis);
  }
  rs.validJumps = analysis.jumps;
  rs.cachedPushes = analysis.pushes;
  rs.shouldDoJumpAnalysis = false;
  const ops = analysis.opcodesCached;
  const fees = analysis.lazyFees as Float64Array;
  const length = code.length;
  // The frame's stack (one object for the frame's life), for the ops run inline below.
  const stack = (rs as unknown as { stack: StackArray }).stack;
  let err: unknown;
  // Static gas of the "pure" ops below, charged as a number and subtracted from the bigint `rs.gasLeft` in one go
  // before anything that can read it (a bigint subtraction per opcode allocates: ~30 % of a loop's time). `budget`
  // bounds `pending` by the gas left (and 2^53), so a pure op never runs out of gas on this path; one that would
  // goes through the exact path after a flush. Not while a tracing hook reads the gas at every step.
  let pending = 0;
  let budget = 0;
  const lazy = hook === undefined && rs.env.accessWitness === undefined;
  const flush = (): void => {
    if (pending !== 0) {
      rs.gasLeft -= BigInt(pending);
      pending = 0;
    }
    budget = rs.gasLeft >= SAFE_GAS ? Number.MAX_SAFE_INTEGER : Number(rs.gasLeft);
  };
  flush();
  while (rs.programCounter < length) {
    const entry = ops[rs.programCounter] as OpcodeEntry;
    const info = entry.opcodeInfo;
    rs.opCode = info.code;
    // Outside the try, like an error from a library `step` listener: it ends the whole call, not just this frame.
    if (watch !== undefined && ++watch.count >= watch.every) {
      watch.count = 0;
      flush();
      const wait = watch.check();
      if (wait !== undefined) await wait;
    }
    const fee = fees[rs.programCounter] as number;
    if (lazy && fee >= 0) {
      if (pending + fee <= budget) {
        pending += fee;
        rs.programCounter++;
        try {
          // stackOps.ts's PUSH, DUP, SWAP, POP and JUMPDEST inline (same code as those functions), recognised by identity
          // so a handler that a tracer or a fork put in their place is still called.
          const handler = entry.opHandler as unknown;
          if (handler === pushOp) {
            const s = stack;
            if (rs.shouldDoJumpAnalysis || s._len >= s._maxHeight) entry.opHandler(rs, common);
            else {
              s._store[s._len++] = rs.cachedPushes[rs.programCounter] as bigint;
              rs.programCounter += info.code - 0x5f;
            }
          } else if (handler === dupOp) {
            const s = stack;
            const n = info.code - 0x7f;
            const len = s._len;
            if (len < n) throw new EVMError(UNDERFLOW);
            if (len >= s._maxHeight) throw new EVMError(OVERFLOW);
            s._store[len] = s._store[len - n] as bigint;
            s._len = len + 1;
          } else if (handler === swapOp) {
            const s = stack;
            const n = info.code - 0x8f;
            const head = s._len - 1;
            if (head < n) throw new EVMError(UNDERFLOW);
            const st = s._store;
            const tmp = st[head] as bigint;
            st[head] = st[head - n] as bigint;
            st[head - n] = tmp;
          } else if (handler === popOp) {
            const s = stack;
            if (s._len < 1) throw new EVMError(UNDERFLOW);
            s._len--;
          } else if (handler !== jumpdestOp) entry.opHandler(rs, common);
        } catch (e) {
          flush();
          if (!isEvmError(e)) throw e;
          if (e.error !== STOP) err = e;
          break;
        }
        continue;
      }
    }
    flush();
    try {
      let gas = info.feeBigInt;
      if (hook === undefined) {
        if (info.dynamicGas)
          gas = entry.syncGasHandler !== undefined ? entry.syncGasHandler(rs, gas) : await entry.gasHandler(rs, gas, common);
      } else {
        const memoryWords = rs.memoryWordCount;
        if (info.dynamicGas) {
          try {
            gas = entry.syncGasHandler !== undefined ? entry.syncGasHandler(rs, gas) : await entry.gasHandler(rs, gas, common);
          } catch (e) {
            // The library reports the step of an op whose dynamic gas fails too (runStep), with the static gas.
            if (isEvmError(e)) hook(interp, info, gas, memoryWords);
            throw e;
          }
        }
        hook(interp, info, gas, memoryWords);
      }
      if (info.isInvalid) throw new EVMError(INVALID_OPCODE);
      rs.gasLeft -= gas;
      // useGas(0) on a negative balance zeroes it and throws OUT_OF_GAS, exactly as the library's useGas would.
      if (rs.gasLeft < 0n) interp.useGas(0n, info);
      rs.programCounter++;
      if (info.isAsync) await entry.opHandler(rs, common);
      else entry.opHandler(rs, common);
      rs.env.accessWitness?.commit();
      // The op may have charged or returned gas (calls): the lazy budget starts again from what is left.
      budget = rs.gasLeft >= SAFE_GAS ? Number.MAX_SAFE_INTEGER : Number(rs.gasLeft);
    } catch (e) {
      rs.env.accessWitness?.revert();
      if (!isEvmError(e)) throw e;
      if (e.error !== STOP) err = e;
      break;
    }
  }
  flush();
  if (err === undefined && rs.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true && rs.gasLeft > 0n) {
    rs.gasLeft = 0n;
    err = new EVMError(OUT_OF_GAS);
  }
  return { runState: rs, exceptionError: err };
}
