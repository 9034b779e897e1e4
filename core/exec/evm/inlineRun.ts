/**
 * The fast loop's inner loop (fastLoop.ts, decision 0035): a synchronous run of the ops whose handlers are
 * stackOps.ts's (arithmetic, comparisons, bitwise ops, PUSH, DUP, SWAP, POP, JUMPDEST, JUMP, JUMPI), inline in one
 * switch with the program counter, the stack height and the lazily charged gas in locals. It stops at the first op
 * it does not run (any other op, one whose gas does not fit the budget, an invalid jump, a step-watch check due) and
 * leaves that op to the outer loop, which calls its handler. Kept out of the async outer loop: V8 compiles this
 * loop to tighter code than the same switch inside an async function with a try per op.
 */
import { EVMError } from '@ethereumjs/evm';
import type { OpcodeEntry } from './internals.ts';
import { isInlined } from './stackOps.ts';
import { BLOCK_ENTRY, blockThreshold, compileBlock, planBlocks, type Block } from './blockCompile.ts';

const UNDERFLOW = EVMError.errorMessages.STACK_UNDERFLOW;
const OVERFLOW = EVMError.errorMessages.STACK_OVERFLOW;
const TWO_256 = 1n << 256n;
/** 2^256 - 1: `& MAX_WORD` reduces a non-negative product or shift (measured faster than BigInt.asUintN(256, …)). */
const MAX_WORD = TWO_256 - 1n;
const JUMP_LIMIT = 0x1_0000_0000n;

/** `inlineKinds` values beyond the opcodes: a PUSH whose next op is a JUMP (or JUMPI) to a valid destination. */
const PUSH_JUMP = 0xb0;
const PUSH_JUMPI = 0xb1;

export interface InlinePlan {
  /**
   * Per pc: `fee << 8 | kind`, where kind is the opcode whose handler the loop runs inline (stackOps.ts `isInlined`)
   * or a fused pair, and fee its static gas; 0 where the inner loop stops.
   */
  words: Int32Array;
  /** Per pc of a fused PUSH: the destination its JUMP/JUMPI goes to. */
  targets: Int32Array;
  /** Per entry pc (kind BLOCK_ENTRY in `words`): its straight-line block (blockCompile.ts). */
  blocks: Array<Block | undefined>;
}

/**
 * Which ops the loop runs inline, and the PUSH-then-JUMP(I) pairs it runs as one step: Solidity jumps to a constant
 * almost everywhere, and the pair skips the push, the bigint compare and the bigint-to-number conversion of the
 * destination (~45 ns each on this host). Both ops must be lazily charged and inline; the destination is checked
 * here, so an invalid one keeps the two separate steps (and the library's error).
 */
export function inlinePlan(code: Uint8Array, ops: OpcodeEntry[], fees: Int32Array, pushes: bigint[], jumps: Uint8Array): InlinePlan {
  const kinds = new Uint8Array(ops.length);
  const targets = new Int32Array(ops.length).fill(-1);
  for (let pc = 0; pc < ops.length; pc++) {
    const entry = ops[pc];
    if (entry !== undefined && (fees[pc] as number) >= 0 && isInlined(entry.opHandler)) kinds[pc] = entry.opcodeInfo.code;
  }
  for (let pc = 0; pc < ops.length; pc++) {
    const op = kinds[pc] as number;
    if (op < 0x60 || op > 0x7f) continue;
    const next = pc + op - 0x5e;
    const jump = kinds[next];
    const dest = pushes[pc + 1] as bigint;
    if ((jump === 0x56 || jump === 0x57) && dest < BigInt(jumps.length) && jumps[Number(dest)] === 1) {
      kinds[pc] = jump === 0x56 ? PUSH_JUMP : PUSH_JUMPI;
      targets[pc] = Number(dest);
    }
  }
  // One word per pc for the inner loop (one typed-array load and map check per op, not two): the static fee above
  // the low byte, the kind in it; 0 where the loop stops. Padded past the code's end (a PUSH there jumps past it).
  const words = new Int32Array(ops.length + 34);
  for (let pc = 0; pc < ops.length; pc++) {
    const fee = fees[pc] as number;
    if (kinds[pc] !== 0 && fee < 1 << 22) words[pc] = (fee << 8) | (kinds[pc] as number);
  }
  const blocks = planBlocks(code, words);
  return { words, targets, blocks };
}

// A JUMP to a destination on the stack converts the bigint through a 64-bit typed array (Number(bigint) is a
// runtime call, ~6x slower), once it is known to be below 2^32.
const JUMP_WORD = new BigUint64Array(1);
const JUMP_HALVES = new Uint32Array(JUMP_WORD.buffer);
const LOW_HALF = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1 ? 0 : 1;

/**
 * One frame's inline state: what the inner loop reads and writes back. `pc`, `len`, `used` and `steps` are the
 * truth while the inner loop runs and after it returns or throws; the outer loop moves them to and from the run state.
 */
export class InlineFrame {
  pc = 0;
  len = 0;
  /** Static gas the inner loop counted (the caller adds it to its pending gas); at most `room`. */
  used = 0;
  room = 0;
  /** Ops the inner loop may run before a step-watch check is due. */
  steps = 0;
  constructor(
    readonly code: Uint8Array,
    readonly st: bigint[],
    readonly max: number,
    readonly words: Int32Array,
    readonly targets: Int32Array,
    readonly pushes: bigint[],
    readonly jumps: Uint8Array,
    readonly blocks: Array<Block | undefined>,
  ) {}
}

/**
 * Runs inline ops from `f.pc` until one it leaves to the caller (or the end of the code). Stack errors are thrown as
 * the library's EVMError, with `f` at the failing op.
 */
export function runInline(f: InlineFrame): void {
  const { code, st, max, words, targets, pushes, jumps, room, blocks } = f;
  let pc = f.pc;
  let len = f.len;
  let used = f.used;
  let steps = f.steps;
  while (steps > 0) {
    let word = words[pc] as number;
    if ((word & 0xff) === BLOCK_ENTRY) {
      // A block entry: the whole block in one call when its gas, steps and stack bounds allow (blockCompile.ts),
      // else its first op on the path below.
      const block = blocks[pc] as Block;
      let run = block.run;
      if (run === undefined && ++block.hits >= blockThreshold()) run = compileBlock(block, code, pushes, targets, jumps);
      if (run !== undefined && used + block.fee <= room && steps >= block.count && len >= block.need && len + block.grow <= max) {
        let next = run(st, len);
        used += block.fee;
        steps -= block.count;
        if (next < 0) {
          // Its last op, a jump to an invalid destination, not run: the switch below runs it (and fails).
          next = ~next;
          used -= block.jumpFee;
          steps++;
        }
        pc = next >>> 11;
        len = next & 0x7ff;
        continue;
      }
      word = block.word;
    }
    const fee = word >> 8;
    if (word === 0 || used + fee > room) break;
    const kind = word & 0xff;
    used += fee;
    steps--;
    switch (kind) {
      case 0x01: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const r = (st[--len] as bigint) + (st[len - 1] as bigint);
        st[len - 1] = r >= TWO_256 ? r - TWO_256 : r;
        pc++;
        continue;
      }
      case 0x02: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const a = st[--len] as bigint;
        st[len - 1] = (a * (st[len - 1] as bigint)) & MAX_WORD;
        pc++;
        continue;
      }
      case 0x03: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const a = st[--len] as bigint;
        const b = st[len - 1] as bigint;
        st[len - 1] = a >= b ? a - b : a - b + TWO_256;
        pc++;
        continue;
      }
      case 0x04: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const a = st[--len] as bigint;
        const b = st[len - 1] as bigint;
        st[len - 1] = b === 0n ? 0n : a / b;
        pc++;
        continue;
      }
      case 0x06: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const a = st[--len] as bigint;
        const b = st[len - 1] as bigint;
        st[len - 1] = b === 0n ? 0n : a % b;
        pc++;
        continue;
      }
      case 0x08: {
        if (len < 3) throw fault(f, pc, len, used, steps, UNDERFLOW);
        len -= 2;
        const c = st[len - 1] as bigint;
        st[len - 1] = c === 0n ? 0n : ((st[len + 1] as bigint) + (st[len] as bigint)) % c;
        pc++;
        continue;
      }
      case 0x09: {
        if (len < 3) throw fault(f, pc, len, used, steps, UNDERFLOW);
        len -= 2;
        const c = st[len - 1] as bigint;
        st[len - 1] = c === 0n ? 0n : ((st[len + 1] as bigint) * (st[len] as bigint)) % c;
        pc++;
        continue;
      }
      case 0x10: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const a = st[--len] as bigint;
        st[len - 1] = a < (st[len - 1] as bigint) ? 1n : 0n;
        pc++;
        continue;
      }
      case 0x11: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const a = st[--len] as bigint;
        st[len - 1] = a > (st[len - 1] as bigint) ? 1n : 0n;
        pc++;
        continue;
      }
      case 0x14: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const a = st[--len] as bigint;
        st[len - 1] = a === st[len - 1] ? 1n : 0n;
        pc++;
        continue;
      }
      case 0x15: {
        if (len < 1) throw fault(f, pc, len, used, steps, UNDERFLOW);
        st[len - 1] = st[len - 1] === 0n ? 1n : 0n;
        pc++;
        continue;
      }
      case 0x16: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const a = st[--len] as bigint;
        st[len - 1] = a & (st[len - 1] as bigint);
        pc++;
        continue;
      }
      case 0x17: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const a = st[--len] as bigint;
        st[len - 1] = a | (st[len - 1] as bigint);
        pc++;
        continue;
      }
      case 0x18: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const a = st[--len] as bigint;
        st[len - 1] = a ^ (st[len - 1] as bigint);
        pc++;
        continue;
      }
      case 0x19: {
        if (len < 1) throw fault(f, pc, len, used, steps, UNDERFLOW);
        st[len - 1] = MAX_WORD ^ (st[len - 1] as bigint);
        pc++;
        continue;
      }
      case 0x1b: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const a = st[--len] as bigint;
        st[len - 1] = a >= 256n ? 0n : ((st[len - 1] as bigint) << a) & MAX_WORD;
        pc++;
        continue;
      }
      case 0x1c: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const a = st[--len] as bigint;
        st[len - 1] = a >= 256n ? 0n : (st[len - 1] as bigint) >> a;
        pc++;
        continue;
      }
      case 0x50:
        if (len < 1) throw fault(f, pc, len, used, steps, UNDERFLOW);
        len--;
        pc++;
        continue;
      case 0x56: {
        if (len < 1) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const dest = st[len - 1] as bigint;
        if (dest < JUMP_LIMIT) {
          JUMP_WORD[0] = dest;
          const to = (JUMP_HALVES[LOW_HALF] as number) | 0; // int32: above 2^31 it is negative, i.e. invalid
          if (jumps[to] === 1) {
            len--;
            pc = to;
            continue;
          }
        }
        break; // the library's handler throws its invalid-jump error (below)
      }
      case 0x57: {
        if (len < 2) throw fault(f, pc, len, used, steps, UNDERFLOW);
        if (st[len - 2] === 0n) {
          len -= 2;
          pc++;
          continue;
        }
        const dest = st[len - 1] as bigint;
        if (dest < JUMP_LIMIT) {
          JUMP_WORD[0] = dest;
          const to = (JUMP_HALVES[LOW_HALF] as number) | 0; // int32: above 2^31 it is negative, i.e. invalid
          if (jumps[to] === 1) {
            len -= 2;
            pc = to;
            continue;
          }
        }
        break;
      }
      case 0x5b:
        pc++;
        continue;
      case 0x60:
      case 0x61:
      case 0x62:
      case 0x63:
      case 0x64:
      case 0x65:
      case 0x66:
      case 0x67:
      case 0x68:
      case 0x69:
      case 0x6a:
      case 0x6b:
      case 0x6c:
      case 0x6d:
      case 0x6e:
      case 0x6f:
      case 0x70:
      case 0x71:
      case 0x72:
      case 0x73:
      case 0x74:
      case 0x75:
      case 0x76:
      case 0x77:
      case 0x78:
      case 0x79:
      case 0x7a:
      case 0x7b:
      case 0x7c:
      case 0x7d:
      case 0x7e:
      case 0x7f:
        if (len >= max) throw fault(f, pc, len, used, steps, OVERFLOW);
        st[len++] = pushes[pc + 1] as bigint;
        pc += kind - 0x5e;
        continue;
      case 0xb0: // PUSH_JUMP (literals: V8 compiles a switch of literal cases to a jump table)
      case 0xb1: {
        // The PUSH's own checks and gas (already counted), then the jump's gas if it fits, else the PUSH alone.
        if (len >= max) throw fault(f, pc, len, used, steps, OVERFLOW);
        const next = pc + (code[pc] as number) - 0x5e;
        const jumpFee = (words[next] as number) >> 8;
        if (steps < 1 || used + jumpFee > room) {
          st[len++] = pushes[pc + 1] as bigint;
          pc = next;
          continue;
        }
        used += jumpFee;
        steps--;
        if (kind === PUSH_JUMP) {
          pc = targets[pc] as number;
          continue;
        }
        // JUMPI: the condition is the word under the pushed destination.
        if (len < 1) throw fault(f, pc, len, used, steps, UNDERFLOW);
        pc = st[--len] === 0n ? next + 1 : (targets[pc] as number);
        continue;
      }
      case 0x80:
      case 0x81:
      case 0x82:
      case 0x83:
      case 0x84:
      case 0x85:
      case 0x86:
      case 0x87:
      case 0x88:
      case 0x89:
      case 0x8a:
      case 0x8b:
      case 0x8c:
      case 0x8d:
      case 0x8e:
      case 0x8f: {
        const n = kind - 0x7f;
        if (len < n) throw fault(f, pc, len, used, steps, UNDERFLOW);
        if (len >= max) throw fault(f, pc, len, used, steps, OVERFLOW);
        st[len] = st[len - n] as bigint;
        len++;
        pc++;
        continue;
      }
      case 0x90:
      case 0x91:
      case 0x92:
      case 0x93:
      case 0x94:
      case 0x95:
      case 0x96:
      case 0x97:
      case 0x98:
      case 0x99:
      case 0x9a:
      case 0x9b:
      case 0x9c:
      case 0x9d:
      case 0x9e:
      case 0x9f: {
        const n = kind - 0x8f;
        if (len <= n) throw fault(f, pc, len, used, steps, UNDERFLOW);
        const head = len - 1;
        const tmp = st[head] as bigint;
        st[head] = st[head - n] as bigint;
        st[head - n] = tmp;
        pc++;
        continue;
      }
    }
    // An inline op's error path (an invalid jump destination): the caller runs its handler, gas not yet counted.
    used -= fee;
    steps++;
    break;
  }
  save(f, pc, len, used, steps);
}

/** Writes the inner loop's locals back to `f`. */
function save(f: InlineFrame, pc: number, len: number, used: number, steps: number): void {
  f.pc = pc;
  f.len = len;
  f.used = used;
  f.steps = steps;
}

/** `f` at the failing op, and the library's error for it. */
function fault(f: InlineFrame, pc: number, len: number, used: number, steps: number, message: string): EVMError {
  save(f, pc, len, used, steps);
  return new EVMError(message as ConstructorParameters<typeof EVMError>[0]);
}
