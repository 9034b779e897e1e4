/**
 * Arithmetic, comparison, bitwise and jump handlers that work on the stack's array in place (issue #18, decision
 * 0033). The library's handlers take their operands through `stack.popN(n)`, which allocates an array per opcode,
 * and reduce every result with `mod(x, 2^256)`, a bigint division; EXP squares with `% 2^256` and halves the
 * exponent by division. These compute the same words with a 2^256 - 1 mask or a compare, and no array.
 * Stack underflow throws the library's STACK_UNDERFLOW before anything is popped, as `popN` does; a JUMP or JUMPI to
 * an invalid destination leaves the stack as it was and calls the library's own handler, so the error and its text
 * are the library's.
 */
import { EVMError } from '@ethereumjs/evm';
import type { CommonLike, OpcodeEntry, RunState } from './internals.ts';

interface StackArray {
  _store: bigint[];
  _len: number;
  _maxHeight: number;
}

type StackRunState = RunState & { stack: StackArray };
type Handler = (rs: StackRunState, common: unknown) => void;

const UNDERFLOW = EVMError.errorMessages.STACK_UNDERFLOW;
const OVERFLOW = EVMError.errorMessages.STACK_OVERFLOW;
const TWO_256 = 1n << 256n;
/** 2^256 - 1: `& MAX_WORD` reduces a non-negative product or shift (measured faster than BigInt.asUintN(256, …)). */
const MAX_WORD = TWO_256 - 1n;

/** `stack` after checking it holds `n` words (the library's `popN` throws this before popping anything). */
function need(rs: StackRunState, n: number): StackArray {
  const s = rs.stack;
  if (s._len < n) throw new EVMError(UNDERFLOW);
  return s;
}

// One function per op (not one wrapper calling a per-op closure, whose call site V8 cannot inline: a quarter of a
// loop's samples went there). Binary ops: \`a\` is the top word, \`b\` the one under it; the result replaces \`b\`.

function add(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  const r = a + b;
  st[top] = r >= TWO_256 ? r - TWO_256 : r;
}

function mul(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  st[top] = (a * b) & MAX_WORD;
}

function sub(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  st[top] = a >= b ? a - b : a - b + TWO_256;
}

function div(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  st[top] = b === 0n ? 0n : a / b;
}

function mod(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  st[top] = b === 0n ? 0n : a % b;
}

function exp(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  st[top] = exp256(a, b);
}

function lt(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  st[top] = a < b ? 1n : 0n;
}

function gt(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  st[top] = a > b ? 1n : 0n;
}

function eq(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  st[top] = a === b ? 1n : 0n;
}

function and(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  st[top] = a & b;
}

function or(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  st[top] = a | b;
}

function xor(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  st[top] = a ^ b;
}

function shl(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  st[top] = a >= 256n ? 0n : (b << a) & MAX_WORD;
}

function shr(rs: StackRunState): void {
  const s = need(rs, 2);
  const st = s._store;
  const top = --s._len - 1;
  const a = st[top + 1] as bigint;
  const b = st[top] as bigint;
  st[top] = a >= 256n ? 0n : b >> a;
}

function addmod(rs: StackRunState): void {
  const s = need(rs, 3);
  const st = s._store;
  s._len -= 2;
  const top = s._len - 1;
  const a = st[top + 2] as bigint;
  const b = st[top + 1] as bigint;
  const c = st[top] as bigint;
  st[top] = c === 0n ? 0n : (a + b) % c;
}

function mulmod(rs: StackRunState): void {
  const s = need(rs, 3);
  const st = s._store;
  s._len -= 2;
  const top = s._len - 1;
  const a = st[top + 2] as bigint;
  const b = st[top + 1] as bigint;
  const c = st[top] as bigint;
  st[top] = c === 0n ? 0n : (a * b) % c;
}

function iszero(rs: StackRunState): void {
  const st = need(rs, 1)._store;
  const top = rs.stack._len - 1;
  const a = st[top] as bigint;
  st[top] = a === 0n ? 1n : 0n;
}

function not(rs: StackRunState): void {
  const st = need(rs, 1)._store;
  const top = rs.stack._len - 1;
  const a = st[top] as bigint;
  st[top] = MAX_WORD ^ a;
}

/**
 * `base ** exponent mod 2^256`, reducing with a mask (the library: `%` and `/`). An exponent below 2^32 runs
 * square-and-multiply over its bits as a number; a larger one (loopExp's 32-byte exponents) left to right over its
 * hex digits, four squarings and at most one multiply by a power of the base per digit: every bigint operation
 * allocates, and bit by bit a 256-bit exponent cost 256 shifts and tests of itself and ~128 multiplies on top of
 * the 256 squarings, against 64 multiplies and 14 for the table here.
 */
export function exp256(base: bigint, exponent: bigint): bigint {
  if (exponent === 0n) return 1n;
  if (base === 0n || base === 1n) return base;
  if (base === 2n) return exponent < 256n ? 1n << exponent : 0n;
  if (exponent <= 0xffff_ffffn) return expSmall(base, Number(exponent));
  const digits = exponent.toString(16);
  const powers: bigint[] = [1n, base];
  for (let i = 2; i < 16; i++) powers.push(((powers[i - 1] as bigint) * base) & MAX_WORD);
  let result = powers[hexDigit(digits.charCodeAt(0))] as bigint;
  for (let i = 1; i < digits.length; i++) {
    if (result === 0n) return 0n; // an even base's powers reach 2^256
    result = (result * result) & MAX_WORD;
    result = (result * result) & MAX_WORD;
    result = (result * result) & MAX_WORD;
    result = (result * result) & MAX_WORD;
    const d = hexDigit(digits.charCodeAt(i));
    if (d !== 0) result = (result * (powers[d] as bigint)) & MAX_WORD;
  }
  return result;
}

/** Square-and-multiply with the exponent's bits in a number (`e` < 2^32). */
function expSmall(base: bigint, e: number): bigint {
  let result = 1n;
  let b = base;
  for (;;) {
    if ((e & 1) === 1) result = (result * b) & MAX_WORD;
    e >>>= 1;
    if (e === 0) return result;
    b = (b * b) & MAX_WORD;
  }
}

/** The value of a lower-case hex digit's character code (bigint `toString(16)` writes lower case). */
const hexDigit = (code: number): number => (code <= 57 ? code - 48 : code - 87);

/** JUMP/JUMPI's destination check, as the library's (`dest > codeSize` or not a JUMPDEST: invalid). */
function validDestination(rs: StackRunState, dest: bigint): boolean {
  return dest < 0x1_0000_0000n && rs.validJumps[Number(dest)] === 1;
}

/**
 * The handlers the fast loop runs inline, by identity (fastLoop.ts): its switch has the same semantics. A handler
 * that a tracer or a fork put in their place is not in the set, so the loop calls it.
 */
const inlined = new WeakSet<object>();

/** Whether the fast loop may run `handler`'s op inline instead of calling it. */
export function isInlined(handler: unknown): boolean {
  return typeof handler === 'function' && inlined.has(handler);
}

function jump(library: Handler): Handler {
  return inline((rs, common) => {
    const s = need(rs, 1);
    const dest = s._store[s._len - 1] as bigint;
    if (!validDestination(rs, dest)) return library(rs, common);
    s._len--;
    rs.programCounter = Number(dest);
  });
}

function inline(handler: Handler): Handler {
  inlined.add(handler);
  return handler;
}

function jumpi(library: Handler): Handler {
  return inline((rs, common) => {
    const s = need(rs, 2);
    const dest = s._store[s._len - 1] as bigint;
    if (s._store[s._len - 2] === 0n) {
      s._len -= 2;
      return;
    }
    if (!validDestination(rs, dest)) return library(rs, common);
    s._len -= 2;
    rs.programCounter = Number(dest);
  });
}

let libraryPush: Handler | undefined;

/**
 * PUSH1-32 from the pushed words of the code analysis, as the library's handler does when the analysis exists. Its
 * two EIP lookups per PUSH (6800, 7864: Verkle code-chunk gas) are answered once, when the table is installed: on a
 * fork with either, PUSH keeps the library's handler (`installStackOps`). A missing analysis and a full stack (its
 * overflow error) take the library's handler too (the first one installed: the same function in every table).
 */

export function pushOp(rs: StackRunState, common: unknown): void {
  const s = rs.stack;
  if (rs.shouldDoJumpAnalysis || s._len >= s._maxHeight) return (libraryPush as Handler)(rs, common);
  s._store[s._len++] = rs.cachedPushes[rs.programCounter] as bigint;
  rs.programCounter += rs.opCode - 0x5f;
}

/** One shared PUSH handler (the fast loop recognises it by identity); the library's, for its fallback, is kept once. */
function push(library: Handler): Handler {
  libraryPush ??= library;
  return pushOp;
}

// DUP1-16, SWAP1-16, POP and JUMPDEST: the library's semantics (its Stack.dup/swap/pop), one shared function each.
// The fast loop recognises these (and PUSH) by identity and runs them inline instead of calling them (fastLoop.ts):
// they are about half of a Solidity loop's opcodes, and a call through the opcode table is most of their cost.

/** DUP1-16 (`rs.opCode` - 0x7f is the depth). */
export function dupOp(rs: StackRunState): void {
  const s = rs.stack;
  const n = rs.opCode - 0x7f;
  const len = s._len;
  if (len < n) throw new EVMError(UNDERFLOW);
  if (len >= s._maxHeight) throw new EVMError(OVERFLOW);
  s._store[len] = s._store[len - n] as bigint;
  s._len = len + 1;
}

/** SWAP1-16 (`rs.opCode` - 0x8f is the depth). */
export function swapOp(rs: StackRunState): void {
  const s = rs.stack;
  const n = rs.opCode - 0x8f;
  const len = s._len;
  if (len <= n) throw new EVMError(UNDERFLOW);
  const st = s._store;
  const head = len - 1;
  const tmp = st[head] as bigint;
  st[head] = st[head - n] as bigint;
  st[head - n] = tmp;
}

/** POP. */
export function popOp(rs: StackRunState): void {
  const s = rs.stack;
  if (s._len < 1) throw new EVMError(UNDERFLOW);
  s._len--;
}

/** JUMPDEST: nothing (its gas is the loop's). */
export function jumpdestOp(): void {}

const REPLACEMENTS: ReadonlyArray<readonly [number, Handler]> = [
  [0x01, add], // ADD
  [0x02, mul], // MUL
  [0x03, sub], // SUB
  [0x04, div], // DIV
  [0x06, mod], // MOD
  [0x08, addmod], // ADDMOD
  [0x09, mulmod], // MULMOD
  [0x0a, exp], // EXP
  [0x10, lt], // LT
  [0x11, gt], // GT
  [0x14, eq], // EQ
  [0x15, iszero], // ISZERO
  [0x16, and], // AND
  [0x17, or], // OR
  [0x18, xor], // XOR
  [0x19, not], // NOT
  [0x1b, shl], // SHL
  [0x1c, shr], // SHR
  [0x50, popOp], // POP
  [0x5b, jumpdestOp], // JUMPDEST
  ...Array.from({ length: 16 }, (_, i) => [0x80 + i, dupOp] as const), // DUP1-16
  ...Array.from({ length: 16 }, (_, i) => [0x90 + i, swapOp] as const), // SWAP1-16
];
/** Handlers that fall back to the library's for their error path. */
const WRAPPERS: ReadonlyArray<readonly [number, (library: Handler) => Handler]> = [
  [0x56, jump],
  [0x57, jumpi],
];
for (const [, handler] of REPLACEMENTS) inlined.add(handler);
inlined.add(pushOp);
const PUSHES: ReadonlyArray<readonly [number, (library: Handler) => Handler]> = Array.from({ length: 32 }, (_, i) => [0x60 + i, push]);

/**
 * Swaps the handlers above into one EVM's opcode table, for its `common`'s fork (a hardfork change rebuilds the
 * table with the library's handlers). An entry whose shape is not the library's (another code, async) is left alone.
 */
export function installStackOps(opcodeMap: OpcodeEntry[], common: CommonLike): void {
  const swap = (code: number, make: (library: Handler) => Handler): void => {
    const entry = opcodeMap[code];
    if (entry === undefined || entry.opcodeInfo.code !== code || entry.opcodeInfo.isAsync) return;
    if ((entry as { stackOps?: boolean }).stackOps === true) return;
    entry.opHandler = make(entry.opHandler as unknown as Handler) as unknown as OpcodeEntry['opHandler'];
    (entry as { stackOps?: boolean }).stackOps = true;
  };
  for (const [code, handler] of REPLACEMENTS) swap(code, () => handler);
  for (const [code, wrap] of WRAPPERS) swap(code, wrap);
  if (!common.isActivatedEIP(6800) && !common.isActivatedEIP(7864)) for (const [code, wrap] of PUSHES) swap(code, wrap);
}
