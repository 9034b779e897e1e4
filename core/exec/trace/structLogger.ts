/**
 * geth's default tracer, the struct logger (eth/tracers/logger): one entry per executed opcode with pc, op, gas,
 * gasCost, depth, stack (quantities), optional memory (32-byte words) and returnData, the storage seen by SLOAD and
 * SSTORE, the refund counter and the error of a failing op; options disableStack, disableStorage, enableMemory,
 * enableReturnData and limit. The answer is geth's ExecutionResult: {gas, failed, returnValue, structLogs}.
 */
import { bytesToHex } from '../../primitives/hex.ts';
import type { FrameExit, OpcodeStep, TraceHooks } from './hooks.ts';
import { TextSink } from './textSink.ts';

export interface StructLoggerConfig {
  disableStack?: boolean;
  disableStorage?: boolean;
  enableMemory?: boolean;
  enableReturnData?: boolean;
  /** Most entries kept (0 = all). */
  limit?: number;
}

const SLOAD = 0x54;
const SSTORE = 0x55;
const CALL_OPS = new Set([0xf1, 0xf2, 0xf4, 0xfa]);

/** Characters of entries gathered before they go to the sink. */
const CHUNK = 32_768;

const hex64 = (w: bigint): string => w.toString(16).padStart(64, '0');

/**
 * Each entry's JSON text is built at once and written to a byte sink (a 200-call trace has hundreds of thousands of
 * entries); the last one is held back until the next op, so the error of a failing op can still be added.
 */
export class StructLogger {
  private readonly out = new TextSink();
  private entries = 0;
  /** Per contract (hex key): the storage words seen so far in this transaction. */
  private readonly storage = new Map<string, Map<string, string>>();
  /** The held-back entry: its text before and after where an error goes, and its depth. */
  private pendingHead: string | undefined;
  private pendingTail = '';
  private pendingDepth = 0;
  /**
   * The previous entry's stack and, for each k, the JSON text of its bottom k items: consecutive ops share all but
   * the top few stack items, so an entry's stack text is a shared prefix plus the items that changed.
   */
  private readonly prevStack: bigint[] = [];
  private readonly prefixes: string[] = [''];
  /** Entries not yet written to the sink: one write per ~32 KB of text rather than one per entry. */
  private chunk = '';

  constructor(
    private readonly config: StructLoggerConfig = {},
    /** Reads a storage slot before the op (SLOAD's value). */
    private readonly readSlot: (address: Uint8Array, slot: bigint) => bigint,
    /** Upper bound on the answer's size; past it the tracer throws (the RPC's byte cap). */
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  get hooks(): TraceHooks {
    return {
      onOpcode: (s: OpcodeStep) => this.step(s),
      onExit: (f: FrameExit) => this.exit(f),
      opcodeMemory: this.config.enableMemory === true,
    };
  }

  private flush(error?: string): void {
    const head = this.pendingHead;
    if (head === undefined) return;
    const entry = error === undefined ? head + this.pendingTail : `${head},"error":${JSON.stringify(error)}${this.pendingTail}`;
    this.chunk += this.entries++ > 0 ? ',' + entry : entry;
    this.pendingHead = undefined;
    if (this.chunk.length > CHUNK) this.drain();
  }

  private drain(): void {
    this.out.write(this.chunk);
    this.chunk = '';
    if (this.out.length > this.maxBytes) throw new TraceTooLarge(this.maxBytes);
  }

  /** The stack as JSON items (quantities), reusing the text of the items the previous entry had too. */
  private stackJson(stack: readonly bigint[], length: number): string {
    const prev = this.prevStack;
    const prefixes = this.prefixes;
    const common = Math.min(prefixes.length - 1, length);
    let i = 0;
    while (i < common && prev[i] === stack[i]) i++;
    prefixes.length = i + 1;
    for (; i < length; i++) {
      const v = stack[i];
      prev[i] = v;
      const item = `"0x${v.toString(16)}"`;
      prefixes.push(i === 0 ? item : prefixes[i] + ',' + item);
    }
    return prefixes[length];
  }

  private step(s: OpcodeStep): void {
    this.flush();
    const limit = this.config.limit ?? 0;
    if (limit > 0 && this.entries >= limit) return;
    const stack = s.stack;
    const top = s.stackLength - 1;
    let cost = s.cost;
    // geth's gasCost of a call includes the gas handed to the callee (its callGasTemp).
    if (CALL_OPS.has(s.op)) cost += callGas(s);
    let tail = '';
    if (!this.config.disableStack) tail += `,"stack":[${this.stackJson(stack, s.stackLength)}]`;
    if (this.config.enableReturnData && s.returnData.length > 0) tail += `,"returnData":"${bytesToHex(s.returnData)}"`;
    if (this.config.enableMemory && s.memory.length > 0) {
      // Memory is a whole number of words; a view, hexed once.
      const hex = Buffer.from(s.memory.buffer, s.memory.byteOffset, s.memory.length).toString('hex');
      const words: string[] = [];
      for (let i = 0; i < hex.length; i += 64) words.push(`"${hex.slice(i, i + 64).padEnd(64, '0')}"`);
      tail += `,"memory":[${words.join(',')}]`;
    }
    if (!this.config.disableStorage && (s.op === SLOAD || s.op === SSTORE) && s.stackLength >= (s.op === SLOAD ? 1 : 2)) {
      const key = Buffer.from(s.address).toString('hex');
      let seen = this.storage.get(key);
      if (!seen) this.storage.set(key, (seen = new Map()));
      const slot = stack[top];
      const value = s.op === SLOAD ? this.readSlot(s.address, slot) : stack[top - 1];
      seen.set(hex64(slot), hex64(value));
      // Go marshals a map with its keys sorted.
      tail += `,"storage":{${[...seen]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => `"${k}":"${v}"`)
        .join(',')}}`;
    }
    if (s.refund > 0n) tail += `,"refund":${s.refund}`;
    this.pendingHead = `{"pc":${s.pc},"op":"${s.opName}","gas":${s.gas},"gasCost":${cost},"depth":${s.depth}`;
    this.pendingTail = tail + '}';
    this.pendingDepth = s.depth;
  }

  /** A failed frame: its last op is the one that failed (geth's OnFault / OnOpcode with an error). */
  private exit(f: FrameExit): void {
    // Only when that op is the frame's own (a precompile that fails has no ops: the CALL before it did not fail).
    if (f.error !== undefined && f.error !== 'execution reverted' && this.pendingHead !== undefined && this.pendingDepth === f.depth + 1)
      this.flush(f.error);
  }

  /** geth's ExecutionResult JSON text: `gas` is the receipt's gas used. */
  result(gasUsed: bigint, failed: boolean, returnValue: Uint8Array): string {
    this.flush();
    this.drain();
    return `{"gas":${gasUsed},"failed":${failed},"returnValue":"${bytesToHex(returnValue)}","structLogs":[${this.out.toString()}]}`;
  }
}

/** The gas a CALL-family op passes on: min(requested, all but 1/64 of what is left after its own cost). */
export function callGas(s: OpcodeStep): bigint {
  const requested = s.stack[s.stackLength - 1];
  const left = s.gas - s.cost;
  if (left <= 0n) return 0n;
  const cap = left - left / 64n;
  return requested < cap ? requested : cap;
}

export class TraceTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`trace result exceeds ${limit} bytes`);
  }
}
