/**
 * The Parity `vmTrace` (OpenEthereum/Erigon's trace_replay* "vmTrace" type): per call frame its code and one entry per
 * executed op, `{cost, ex: {mem, push, store, used}, pc, sub, op}`: `cost` the op's gas (for a call or creation with
 * the gas it passes on, as geth's struct logger counts it), `used` the gas left after the op (after a call: once the
 * callee returned), `push` the stack items the op left (DUPn/SWAPn: the n+1 items they touched, bottom first),
 * `mem` the memory the op wrote (MSTORE/MSTORE8, the copies, a call's output space), `store` an SSTORE's slot and
 * value, `sub` the frame a call or creation opened. The step hook sees each op before it runs, so an op's `ex` is
 * filled in from what the next op of the same frame sees; a frame's last op (STOP, RETURN, REVERT, a failure) from
 * its own gas. A failing op has `ex: null`.
 */
import { TraceTooLarge, callGas } from './structLogger.ts';
import type { FrameEnter, FrameExit, OpcodeStep, TraceHooks } from './hooks.ts';
import { bytesToHex } from '../../primitives/hex.ts';

interface VmOp {
  cost: number;
  ex: { mem: { data: string; off: number } | null; push: string[]; store: { key: string; val: string } | null; used: number } | null;
  pc: number;
  sub: VmFrame | null;
  op: string;
}

interface VmFrame {
  code: string;
  ops: VmOp[];
}

/** What the next step needs to finish an op: where the op wrote memory, how many items it pushed. */
interface Pending {
  op: VmOp;
  gasAfterCost: bigint;
  push: number;
  memOff: number;
  memLen: number;
  store: { key: string; val: string } | null;
}

interface Open {
  frame: VmFrame;
  pending: Pending | undefined;
}

/** Ops that leave nothing on the stack; every other op (but DUPn/SWAPn) leaves one item. */
const NO_OUTPUT = new Set([
  0x00, 0x37, 0x39, 0x3c, 0x3e, 0x50, 0x52, 0x53, 0x55, 0x56, 0x57, 0x5b, 0x5d, 0x5e, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xf3, 0xfd, 0xfe, 0xff,
]);
const CALL_OPS = new Set([0xf1, 0xf2, 0xf4, 0xfa]);
const CREATE_OPS = new Set([0xf0, 0xf5]);
/** Errors of a frame the EVM refused before it started (hooks.ts): no sub-trace, the call op just pushes 0. */
const REFUSED = new Set(['max call depth exceeded', 'insufficient balance for transfer', 'nonce uint64 overflow']);
/** A rough size of one entry's JSON, to stop a huge trace at the byte cap before it is built. */
const ENTRY_BYTES = 96;

const q = (v: bigint): string => '0x' + v.toString(16);
const n = (v: bigint): number => Number(v);

function pushCount(op: number): number {
  if (op >= 0x80 && op <= 0x8f) return op - 0x80 + 2;
  if (op >= 0x90 && op <= 0x9f) return op - 0x90 + 2;
  return NO_OUTPUT.has(op) ? 0 : 1;
}

export class VmTracer {
  private root: VmFrame | undefined;
  private readonly open: Open[] = [];
  private bytes = 0;

  constructor(
    /** The code an address runs (CALL, STATICCALL; DELEGATECALL and CALLCODE name the code's address). */
    private readonly codeAt: (address: Uint8Array) => Uint8Array,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  get hooks(): TraceHooks {
    return {
      onOpcode: (s) => this.step(s),
      onEnter: (f) => this.enter(f),
      onExit: (f) => this.exit(f),
      opcodeMemory: true,
    };
  }

  private enter(f: FrameEnter): void {
    if (f.type === 'SELFDESTRUCT') return;
    const code = f.type === 'CREATE' || f.type === 'CREATE2' ? f.input : f.to ? this.codeAt(f.to) : new Uint8Array(0);
    const frame: VmFrame = { code: bytesToHex(code), ops: [] };
    const parent = this.open.at(-1);
    if (parent?.pending) parent.pending.op.sub = frame;
    else if (!this.root) this.root = frame;
    this.open.push({ frame, pending: undefined });
  }

  private exit(f: FrameExit): void {
    if (this.open.length === 0 || f.depth + 1 !== this.open.length) return;
    const top = this.open.pop() as Open;
    const p = top.pending;
    if (p) {
      const failed = f.error !== undefined && f.error !== 'execution reverted';
      p.op.ex = failed ? null : { mem: null, push: [], store: null, used: n(p.gasAfterCost) };
    }
    if (REFUSED.has(f.error ?? '') && top.frame.ops.length === 0) {
      const parent = this.open.at(-1);
      if (parent?.pending?.op.sub === top.frame) parent.pending.op.sub = null;
    }
  }

  private step(s: OpcodeStep): void {
    const top = this.open[s.depth - 1];
    if (!top) return;
    if (top.pending) this.finish(top.pending, s);
    const stack = s.stack;
    const t = s.stackLength - 1;
    let cost = s.cost;
    let memOff = 0;
    let memLen = 0;
    let store: Pending['store'] = null;
    const op = s.op;
    if (CALL_OPS.has(op)) {
      cost += callGas(s);
      // The output space: CALL/CALLCODE (gas, to, value, in, inSize, out, outSize), the others without value.
      const withValue = op === 0xf1 || op === 0xf2;
      memOff = n(stack[t - (withValue ? 5 : 4)]);
      memLen = n(stack[t - (withValue ? 6 : 5)]);
    } else if (CREATE_OPS.has(op)) {
      const left = s.gas - s.cost;
      cost += left > 0n ? left - left / 64n : 0n;
    } else if (op === 0x52 || op === 0x53) {
      memOff = n(stack[t]);
      memLen = op === 0x52 ? 32 : 1;
    } else if (op === 0x37 || op === 0x39 || op === 0x3e || op === 0x5e) {
      memOff = n(stack[t]);
      memLen = n(stack[t - 2]);
    } else if (op === 0x3c) {
      memOff = n(stack[t - 1]);
      memLen = n(stack[t - 3]);
    } else if (op === 0x55) {
      store = { key: q(stack[t]), val: q(stack[t - 1]) };
    }
    const entry: VmOp = { cost: n(cost), ex: null, pc: s.pc, sub: null, op: s.opName };
    top.frame.ops.push(entry);
    top.pending = { op: entry, gasAfterCost: s.gas - cost, push: pushCount(op), memOff, memLen, store };
    this.bytes += ENTRY_BYTES;
    if (this.bytes > this.maxBytes) throw new TraceTooLarge(this.maxBytes);
  }

  /** The previous op of the frame, seen from the op after it. */
  private finish(p: Pending, s: OpcodeStep): void {
    const push: string[] = [];
    for (let i = s.stackLength - p.push; i < s.stackLength; i++) push.push(q(s.stack[i]));
    let mem: { data: string; off: number } | null = null;
    if (p.memLen > 0 && p.memOff + p.memLen <= s.memory.length) {
      mem = { data: bytesToHex(s.memory.subarray(p.memOff, p.memOff + p.memLen)), off: p.memOff };
      this.bytes += p.memLen * 2;
    }
    p.op.ex = { mem, push, store: p.store, used: n(s.gas) };
  }

  /** The top frame's trace (null when nothing ran: a transfer to an account without code). */
  result(): VmFrame | null {
    return this.root ?? null;
  }
}
