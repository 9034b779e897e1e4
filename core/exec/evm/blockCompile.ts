/**
 * Straight-line runs of the inner loop's ops compiled to JavaScript functions (issue #18, decision 0043). A CPU
 * profile of ethereum/tests loopMul put 98 % of its samples in the inner loop's dispatch (inlineRun.ts): the word
 * load, the gas and step checks and the switch per op, for ops whose work is one bigint operation or a stack move.
 * A block is the run of inline ops from an entry pc (a JUMPDEST, the op after a JUMPI, or after an op the inner loop
 * does not run) to a PUSH+JUMP(I) pair, a jump taken from the stack or an op it does not run. Once an entry has been
 * reached `threshold` times, its block becomes one function: the stack words it reads are loaded once, DUP, SWAP,
 * POP and PUSH move names at compile time, each arithmetic op is one expression (the same as the inner loop's case),
 * and the words left are written back once. The block's static gas, step count and stack bounds are checked before
 * it runs, so nothing inside can fail; when a check does not pass (gas or steps about to run out, the stack too low
 * or too high), the inner loop runs the ops one by one as before and gives the library's error at the same op.
 */

/** One entry pc's block: what it needs to run whole, and (once hot) its compiled function. */
export interface Block {
  /** The entry op's own word (fee << 8 | kind): what the inner loop runs when the block's checks do not pass. */
  readonly word: number;
  /** Static gas of every op in the block. */
  readonly fee: number;
  /** Steps (ops, a fused pair counting two). */
  readonly count: number;
  /** Stack words the block needs below it. */
  readonly need: number;
  /** Highest stack height above the entry height that a push reaches (len + grow must not pass the limit). */
  readonly grow: number;
  /** The ops, as [pc, kind] pairs. */
  readonly ops: ReadonlyArray<readonly [number, number]>;
  /**
   * Static gas of a last op that jumps to a destination on the stack (JUMP, JUMPI), or 0. When that destination is
   * invalid, the function returns `~(jumpPc << 11 | len)` with the stack as before the jump, and the inner loop
   * gives this gas and one step back and runs the jump itself (the library's error).
   */
  readonly jumpFee: number;
  /** Times the entry was reached before compiling. */
  hits: number;
  /** `(st, len) => nextPc << 11 | newLen`, once compiled. */
  run: ((st: bigint[], len: number) => number) | undefined;
}

/** Kind of a block entry in the inner loop's words (after the fused pairs' 0xb0, 0xb1). */
export const BLOCK_ENTRY = 0xb2;
const PUSH_JUMP = 0xb0;
const PUSH_JUMPI = 0xb1;
/** Longest block compiled (bounds the generated source). */
const MAX_OPS = 256;
/** Code at or past this size gets no blocks: the result packs the next pc above 11 bits of stack height. */
const MAX_CODE = 1 << 19;

let threshold = 1000;

/** Entries reached this many times are compiled (tests set 1 to compile every block on its first run). */
export function setBlockThreshold(n: number): void {
  threshold = Math.max(1, Math.floor(n));
}

export function blockThreshold(): number {
  return threshold;
}

/** Stack words an inline kind reads (its underflow bound) and its height change. */
function shape(kind: number): [number, number] {
  if (kind >= 0x60 && kind <= 0x7f) return [0, 1];
  if (kind >= 0x80 && kind <= 0x8f) return [kind - 0x7f, 1];
  if (kind >= 0x90 && kind <= 0x9f) return [kind - 0x8f + 1, 0];
  switch (kind) {
    case 0x15:
    case 0x19:
      return [1, 0];
    case 0x08:
    case 0x09:
      return [3, -2];
    case 0x50:
      return [1, -1];
    case 0x5b:
      return [0, 0];
    case PUSH_JUMP:
      return [0, 0];
    case PUSH_JUMPI:
      return [1, -1];
    case 0x56:
      return [1, -1];
    case 0x57:
      return [2, -2];
    default:
      return [2, -1];
  }
}

/** Kinds a block may hold (every case of the inner loop's switch except a jump whose destination is on the stack). */
const COMPILABLE = new Uint8Array(256);
for (const k of [0x01, 0x02, 0x03, 0x04, 0x06, 0x08, 0x09, 0x10, 0x11, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1b, 0x1c, 0x50, 0x5b])
  COMPILABLE[k] = 1;
for (let k = 0x60; k <= 0x9f; k++) COMPILABLE[k] = 1;
COMPILABLE[PUSH_JUMP] = 1;
COMPILABLE[PUSH_JUMPI] = 1;
COMPILABLE[0x56] = 1;
COMPILABLE[0x57] = 1;

/**
 * The blocks of one code's inner-loop plan, and the entries marked in `words` (kind BLOCK_ENTRY, the entry op's fee
 * kept). `code` is the bytecode, `words` the per-pc `fee << 8 | kind` words (0 where the inner loop stops).
 */
export function planBlocks(code: Uint8Array, words: Int32Array): Array<Block | undefined> {
  const length = code.length;
  const blocks: Array<Block | undefined> = new Array<Block | undefined>(length);
  if (length >= MAX_CODE) return blocks;
  const entries = new Uint8Array(length + 1);
  entries[0] = 1;
  for (let pc = 0; pc < length;) {
    const op = code[pc] as number;
    const size = op >= 0x60 && op <= 0x7f ? op - 0x5e : 1;
    if (op === 0x5b) entries[pc] = 1;
    const kind = (words[pc] as number) & 0xff;
    if (words[pc] === 0 || op === 0x57) entries[pc + size] = 1;
    if (kind === PUSH_JUMPI) entries[pc + size + 1] = 1;
    pc += size;
  }
  for (let pc = 0; pc < length; pc++) {
    if (entries[pc] !== 1 || words[pc] === 0) continue;
    const block = scan(code, words, pc);
    if (block !== undefined) blocks[pc] = block;
  }
  for (let pc = 0; pc < length; pc++) {
    const block = blocks[pc];
    if (block !== undefined) words[pc] = (block.word & ~0xff) | BLOCK_ENTRY;
  }
  return blocks;
}

function scan(code: Uint8Array, words: Int32Array, entry: number): Block | undefined {
  const ops: Array<readonly [number, number]> = [];
  let fee = 0;
  let count = 0;
  let height = 0;
  let need = 0;
  let grow = 0;
  let jumpFee = 0;
  let pc = entry;
  while (ops.length < MAX_OPS && pc < code.length) {
    const word = words[pc] as number;
    const kind = word & 0xff;
    if (word === 0 || COMPILABLE[kind] !== 1) break;
    const [reads, delta] = shape(kind);
    need = Math.max(need, reads - height);
    if (delta > 0 || kind === PUSH_JUMP || kind === PUSH_JUMPI) grow = Math.max(grow, height + 1);
    height += delta;
    fee += word >> 8;
    count++;
    ops.push([pc, kind]);
    if (kind === PUSH_JUMP || kind === PUSH_JUMPI) {
      const next = pc + (code[pc] as number) - 0x5e;
      fee += (words[next] as number) >> 8;
      count++;
      break;
    }
    if (kind === 0x56 || kind === 0x57) {
      jumpFee = word >> 8;
      break;
    }
    pc += kind >= 0x60 && kind <= 0x7f ? kind - 0x5e : 1;
  }
  if (count < 3) return undefined;
  return { word: words[entry] as number, fee, count, need, grow, ops, jumpFee, hits: 0, run: undefined };
}

const BINARY: Record<number, (a: string, b: string) => string> = {
  0x02: (a, b) => `(${a} * ${b}) & M`,
  0x04: (a, b) => `${b} === 0n ? 0n : ${a} / ${b}`,
  0x06: (a, b) => `${b} === 0n ? 0n : ${a} % ${b}`,
  0x10: (a, b) => `${a} < ${b} ? 1n : 0n`,
  0x11: (a, b) => `${a} > ${b} ? 1n : 0n`,
  0x14: (a, b) => `${a} === ${b} ? 1n : 0n`,
  0x16: (a, b) => `${a} & ${b}`,
  0x17: (a, b) => `${a} | ${b}`,
  0x18: (a, b) => `${a} ^ ${b}`,
  0x1b: (a, b) => `${a} >= 256n ? 0n : (${b} << ${a}) & M`,
  0x1c: (a, b) => `${a} >= 256n ? 0n : ${b} >> ${a}`,
};

/**
 * Compiles `block` (and keeps the function in it) of a code whose pushed words are `pushes`, fused jump destinations
 * `targets` and valid destinations `jumps`. The function returns `nextPc << 11 | len` (the stack never passes 1,024
 * words), or that of the block's last op, complemented, when that op is a jump to an invalid destination.
 */
export function compileBlock(
  block: Block,
  code: Uint8Array,
  pushes: readonly bigint[],
  targets: Int32Array,
  jumps: Uint8Array,
): NonNullable<Block['run']> {
  const consts: bigint[] = [];
  const lines: string[] = [];
  /** The stack above what the block leaves untouched: names of locals, constants or loaded words. */
  const sym: string[] = [];
  /** Words loaded from below the entry height (`in1` is st[len - 1]). */
  let below = 0;
  let temps = 0;
  const peek = (depth: number): void => {
    while (sym.length <= depth) {
      below++;
      lines.push(`const in${below} = st[len - ${below}];`);
      sym.unshift(`in${below}`);
    }
  };
  const constant = (value: bigint): string => {
    consts.push(value);
    return `k${consts.length - 1}`;
  };
  const define = (expr: string): string => {
    const name = `t${temps++}`;
    lines.push(`const ${name} = ${expr};`);
    return name;
  };
  let exit = '';
  /** For a last JUMP/JUMPI from the stack: the code that returns, given the write-back of a final stack. */
  let dynamicExit: ((writeBack: (final: string[]) => string[]) => string[]) | undefined;
  const last = block.ops[block.ops.length - 1] as readonly [number, number];
  for (const [pc, kind] of block.ops) {
    if (kind >= 0x60 && kind <= 0x7f) {
      sym.push(constant(pushes[pc + 1] as bigint));
    } else if (kind >= 0x80 && kind <= 0x8f) {
      const n = kind - 0x7f;
      peek(n - 1);
      sym.push(sym[sym.length - n] as string);
    } else if (kind >= 0x90 && kind <= 0x9f) {
      const n = kind - 0x8f;
      peek(n);
      const top = sym.length - 1;
      const tmp = sym[top] as string;
      sym[top] = sym[top - n] as string;
      sym[top - n] = tmp;
    } else if (kind === 0x50) {
      peek(0);
      sym.pop();
    } else if (kind === 0x5b) {
      // JUMPDEST: its gas only.
    } else if (kind === PUSH_JUMP) {
      exit = `${targets[pc] as number}`;
    } else if (kind === PUSH_JUMPI) {
      // JUMPI pops the pushed destination (never materialised) and the condition under it.
      peek(0);
      const cond = sym.pop() as string;
      const next = pc + (code[pc] as number) - 0x5e;
      exit = `(${cond} === 0n ? ${next + 1} : ${targets[pc] as number})`;
    } else if (kind === 0x56 || kind === 0x57) {
      // A destination from the stack (a Solidity internal function's return): valid ones are taken here; an invalid
      // one returns the stack as it was before the jump, marked, for the inner loop to run the jump itself.
      const jumpi = kind === 0x57;
      peek(jumpi ? 1 : 0);
      const before = [...sym];
      const dest = sym.pop() as string;
      const cond = jumpi ? (sym.pop() as string) : '';
      const after = [...sym];
      const height = (final: string[]): number => final.length - below;
      dynamicExit = (writeBack) => [
        ...(jumpi ? [`if (${cond} === 0n) {`, ...writeBack(after), `return ${(pc + 1) << 11} | (len + ${height(after)});`, '}'] : []),
        `if (${dest} < JL) {`,
        `W[0] = ${dest};`,
        'const to = H[LO] | 0;',
        'if (J[to] === 1) {',
        ...writeBack(after),
        `return (to << 11) | (len + ${height(after)});`,
        '}',
        '}',
        ...writeBack(before),
        `return ~(${pc << 11} | (len + ${height(before)}));`,
      ];
    } else if (kind === 0x15 || kind === 0x19) {
      peek(0);
      const a = sym.pop() as string;
      sym.push(define(kind === 0x15 ? `${a} === 0n ? 1n : 0n` : `M ^ ${a}`));
    } else if (kind === 0x08 || kind === 0x09) {
      peek(2);
      const a = sym.pop() as string;
      const b = sym.pop() as string;
      const c = sym.pop() as string;
      sym.push(define(`${c} === 0n ? 0n : (${a} ${kind === 0x08 ? '+' : '*'} ${b}) % ${c}`));
    } else if (kind === 0x01) {
      peek(1);
      const a = sym.pop() as string;
      const b = sym.pop() as string;
      const sum = define(`${a} + ${b}`);
      sym.push(define(`${sum} >= T ? ${sum} - T : ${sum}`));
    } else if (kind === 0x03) {
      peek(1);
      const a = sym.pop() as string;
      const b = sym.pop() as string;
      sym.push(define(`${a} >= ${b} ? ${a} - ${b} : ${a} - ${b} + T`));
    } else {
      const op = BINARY[kind];
      if (op === undefined) throw new Error(`blockCompile: kind 0x${kind.toString(16)}`);
      peek(1);
      const a = sym.pop() as string;
      const b = sym.pop() as string;
      sym.push(define(op(a, b)));
    }
  }
  // Write back in increasing index order (the stack's array grows by appends), skipping words left in place.
  const writeBack = (final: string[]): string[] => {
    const out: string[] = [];
    for (let i = 0; i < final.length; i++) {
      const depth = below - i; // the slot st[len - below + i] held `in${depth}` on entry
      if (depth >= 1 && final[i] === `in${depth}`) continue;
      const at = i - below;
      out.push(`st[len${at < 0 ? ` - ${-at}` : at > 0 ? ` + ${at}` : ''}] = ${final[i] as string};`);
    }
    return out;
  };
  if (dynamicExit !== undefined) {
    lines.push(...dynamicExit(writeBack));
  } else {
    if (exit === '') {
      const [pc, kind] = last;
      exit = `${pc + (kind >= 0x60 && kind <= 0x7f ? kind - 0x5e : 1)}`;
    }
    lines.push(...writeBack(sym), `return (${exit} << 11) | (len + ${sym.length - below});`);
  }
  const header = consts.map((_, i) => `const k${i} = K[${i}];`).join('\n');
  const source = `${header}\nreturn function block(st, len) {\n${lines.join('\n')}\n};`;
  const TWO_256 = 1n << 256n;
  // The source is built from the templates above and numbers only (pcs, offsets); pushed words are passed as values.
  const factory = new Function('K', 'T', 'M', 'J', 'JL', 'W', 'H', 'LO', source) as (
    k: bigint[],
    t: bigint,
    m: bigint,
    j: Uint8Array,
    jl: bigint,
    w: BigUint64Array,
    h: Uint32Array,
    lo: number,
  ) => Block['run'];
  const run = factory(consts, TWO_256, TWO_256 - 1n, jumps, JUMP_LIMIT, JUMP_WORD, JUMP_HALVES, LOW_HALF) as NonNullable<Block['run']>;
  block.run = run;
  return run;
}

// A destination from the stack is converted through a 64-bit typed array once below 2^32, as in inlineRun.ts.
const JUMP_LIMIT = 0x1_0000_0000n;
const JUMP_WORD = new BigUint64Array(1);
const JUMP_HALVES = new Uint32Array(JUMP_WORD.buffer);
const LOW_HALF = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1 ? 0 : 1;
