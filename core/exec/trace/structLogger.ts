/**
 * geth's default tracer, the struct logger (eth/tracers/logger): one entry per executed opcode with pc, op, gas,
 * gasCost, depth, stack (quantities), optional memory (32-byte words) and returnData, the storage seen by SLOAD and
 * SSTORE, the refund counter and the error of a failing op; options disableStack, disableStorage, enableMemory,
 * enableReturnData and limit. The answer is geth's ExecutionResult: {gas, failed, returnValue, structLogs}.
 */
import { bytesToHex } from '../../primitives/hex.ts';
import type { FrameExit, OpcodeStep, TraceHooks } from './hooks.ts';

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

const hex64 = (w: bigint): string => w.toString(16).padStart(64, '0');

/** The JSON text of one entry is built at once: a 200-call trace has hundreds of thousands of them. */
export class StructLogger {
  private readonly logs: string[] = [];
  /** Per contract (hex key): the storage words seen so far in this transaction. */
  private readonly storage = new Map<string, Map<string, string>>();
  /** The last entry's JSON parts, so the fault of the op it records can be added. */
  private pending: { head: string; tail: string; depth: number } | undefined;
  private bytes = 0;

  constructor(
    private readonly config: StructLoggerConfig = {},
    /** Reads a storage slot before the op (SLOAD's value). */
    private readonly readSlot: (address: Uint8Array, slot: bigint) => bigint,
    /** Upper bound on the answer's size; past it the tracer throws (the RPC's byte cap). */
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  readonly hooks: TraceHooks = {
    onOpcode: (s: OpcodeStep) => this.step(s),
    onExit: (f: FrameExit) => this.exit(f),
  };

  private flush(error?: string): void {
    const p = this.pending;
    if (!p) return;
    const entry = error === undefined ? p.head + p.tail : `${p.head},"error":${JSON.stringify(error)}${p.tail}`;
    this.bytes += entry.length + 1;
    if (this.bytes > this.maxBytes) throw new TraceTooLarge(this.maxBytes);
    this.logs.push(entry);
    this.pending = undefined;
  }

  private step(s: OpcodeStep): void {
    this.flush();
    const limit = this.config.limit ?? 0;
    if (limit > 0 && this.logs.length >= limit) return;
    let cost = s.cost;
    // geth's gasCost of a call includes the gas handed to the callee (its callGasTemp).
    if (CALL_OPS.has(s.op)) cost += callGas(s);
    let head = `{"pc":${s.pc},"op":"${s.opName}","gas":${s.gas},"gasCost":${cost},"depth":${s.depth}`;
    let tail = '';
    if (!this.config.disableStack) tail += `,"stack":[${s.stack.map((v) => `"0x${v.toString(16)}"`).join(',')}]`;
    if (this.config.enableReturnData && s.returnData.length > 0) tail += `,"returnData":"${bytesToHex(s.returnData)}"`;
    if (this.config.enableMemory && s.memory.length > 0) {
      const words: string[] = [];
      for (let i = 0; i < s.memory.length; i += 32)
        words.push(
          `"${Buffer.from(s.memory.subarray(i, i + 32))
            .toString('hex')
            .padEnd(64, '0')}"`,
        );
      tail += `,"memory":[${words.join(',')}]`;
    }
    if (!this.config.disableStorage && (s.op === SLOAD || s.op === SSTORE) && s.stack.length >= (s.op === SLOAD ? 1 : 2)) {
      const key = Buffer.from(s.address).toString('hex');
      let seen = this.storage.get(key);
      if (!seen) this.storage.set(key, (seen = new Map()));
      const slot = s.stack[s.stack.length - 1];
      const value = s.op === SLOAD ? this.readSlot(s.address, slot) : s.stack[s.stack.length - 2];
      seen.set(hex64(slot), hex64(value));
      // Go marshals a map with its keys sorted.
      tail += `,"storage":{${[...seen]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => `"${k}":"${v}"`)
        .join(',')}}`;
    }
    if (s.refund > 0n) tail += `,"refund":${s.refund}`;
    this.pending = { head, tail: tail + '}', depth: s.depth };
    head = '';
  }

  /** A failed frame: its last op is the one that failed (geth's OnFault / OnOpcode with an error). */
  private exit(f: FrameExit): void {
    // Only when that op is the frame's own (a precompile that fails has no ops: the CALL before it did not fail).
    if (f.error !== undefined && f.error !== 'execution reverted' && this.pending?.depth === f.depth + 1) this.flush(f.error);
  }

  /** geth's ExecutionResult JSON text: `gas` is the receipt's gas used. */
  result(gasUsed: bigint, failed: boolean, returnValue: Uint8Array): string {
    this.flush();
    return `{"gas":${gasUsed},"failed":${failed},"returnValue":"${bytesToHex(returnValue)}","structLogs":[${this.logs.join(',')}]}`;
  }
}

/** The gas a CALL-family op passes on: min(requested, all but 1/64 of what is left after its own cost). */
function callGas(s: OpcodeStep): bigint {
  const requested = s.stack[s.stack.length - 1];
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
