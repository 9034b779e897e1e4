/**
 * Tracing hooks over @ethereumjs/evm (geth's tracing.Hooks, the part the built-in tracers use): call frames from the
 * library's `beforeMessage` / `afterMessage` events, typed by the opcode that opened them, opcode steps from `step`
 * (library loop only: EvmHost `libraryLoop`), logs and self-destructs from wrappers around those opcodes' handlers.
 * Attached to one EVM instance for one traced transaction, detached after.
 */
import type { EVM } from '@ethereumjs/evm';
import { keyOf } from '../../state/keys.ts';

export type CallType = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT';

/** A call frame opening (geth OnEnter). `value` is undefined where geth reports none (STATICCALL). */
export interface FrameEnter {
  depth: number;
  type: CallType;
  from: Uint8Array;
  /** Undefined for a creation until it exits. */
  to: Uint8Array | undefined;
  input: Uint8Array;
  gas: bigint;
  value: bigint | undefined;
}

/** A call frame closing (geth OnExit). `error` is geth's text; `reverted` = the frame's changes were undone. */
export interface FrameExit {
  depth: number;
  output: Uint8Array;
  gasUsed: bigint;
  error: string | undefined;
  reverted: boolean;
  /** The address a creation made. */
  created: Uint8Array | undefined;
}

/** One opcode about to run (geth OnOpcode), as @ethereumjs/evm's `step` event gives it. */
export interface OpcodeStep {
  pc: number;
  op: number;
  opName: string;
  gas: bigint;
  /** Static + dynamic gas of the op (for calls, without the gas passed on: the struct logger adds it). */
  cost: bigint;
  depth: number;
  refund: bigint;
  /** Bottom first. */
  stack: bigint[];
  memory: Uint8Array;
  address: Uint8Array;
  /** Return data of the last call this frame made. */
  returnData: Uint8Array;
}

export interface LogEvent {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

export interface TraceHooks {
  onEnter?(frame: FrameEnter): void;
  onExit?(frame: FrameExit): void;
  onOpcode?(step: OpcodeStep): void;
  onLog?(log: LogEvent): void;
  /** SLOAD or SSTORE of `slot` (32 bytes) in `address`'s storage, before the op runs. */
  onStorage?(address: Uint8Array, slot: Uint8Array): void;
}

/** @ethereumjs/evm's error texts as geth words them (core/vm/errors.go). */
const GETH_ERRORS: Readonly<Record<string, string>> = {
  revert: 'execution reverted',
  'out of gas': 'out of gas',
  'invalid opcode': 'invalid opcode',
  'stack underflow': 'stack underflow',
  'stack overflow': 'stack limit reached 1024 (1023)',
  'invalid JUMP': 'invalid jump destination',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'static state change': 'write protection',
  'insufficient balance': 'insufficient balance for transfer',
  'create collision': 'contract address collision',
  'invalid input length': 'invalid input length',
  'returndatacopy out of bounds': 'return data out of bounds',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'value overflow': 'gas uint64 overflow',
};

/** geth's wording of an @ethereumjs/evm error text. */
export function gethError(error: string): string {
  return GETH_ERRORS[error] ?? error;
}

/** JUMPDESTs between event-loop turns while tracing. */
const YIELD_EVERY = 128;

const CALL_OPS: Readonly<Record<number, CallType>> = {
  0xf0: 'CREATE',
  0xf1: 'CALL',
  0xf2: 'CALLCODE',
  0xf4: 'DELEGATECALL',
  0xf5: 'CREATE2',
  0xfa: 'STATICCALL',
};

interface OpcodeEntry {
  opHandler: (runState: RunState, common: unknown) => unknown;
  [k: string]: unknown;
}
interface RunState {
  stack: { peek(n?: number): bigint[]; getStack(): bigint[] };
  memory: { read(offset: number, size: number): Uint8Array };
  interpreter: { getAddress(): { bytes: Uint8Array }; getReturnDataSize(): bigint; _runState?: unknown };
  returnBytes?: Uint8Array;
}
interface EvmInternals {
  _opcodeMap: (OpcodeEntry | undefined)[];
  events: { on(e: string, f: (...a: never[]) => void): void; off(e: string, f: (...a: never[]) => void): void };
}
interface MessageLike {
  depth: number;
  caller: { bytes: Uint8Array };
  to?: { bytes: Uint8Array };
  _codeAddress?: { bytes: Uint8Array };
  value: bigint;
  data: Uint8Array;
  gasLimit: bigint;
  delegatecall: boolean;
  isStatic: boolean;
  salt?: Uint8Array;
}
interface ResultLike {
  createdAddress?: { bytes: Uint8Array };
  execResult: { returnValue: Uint8Array; executionGasUsed: bigint; exceptionError?: { error: string } };
}
interface StepLike {
  pc: number;
  gasLeft: bigint;
  gasRefund: bigint;
  opcode: { name: string; dynamicFee: bigint; code: number };
  stack: bigint[];
  depth: number;
  address: { bytes: Uint8Array };
  memory: Uint8Array;
}

const word20 = (w: bigint): Uint8Array => {
  const out = new Uint8Array(20);
  let v = w & ((1n << 160n) - 1n);
  for (let i = 19; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
};

const word32 = (w: bigint): Uint8Array => {
  const out = new Uint8Array(32);
  let v = w;
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
};

/**
 * Attaches `hooks` to `evm` and returns the function that detaches them. `balanceOf` reads the current state (the
 * SELFDESTRUCT frame's value).
 */
export function attachHooks(
  evm: EVM,
  hooks: TraceHooks,
  balanceOf: (address: Uint8Array) => bigint,
  /** Called on every JUMPDEST and call frame: the deadline check (it may throw to stop the run). */
  tick?: () => void,
): () => void {
  const internals = evm as unknown as EvmInternals;
  const original = internals._opcodeMap;
  const map = [...original];
  /** The type of the frame the next message opens (set by the opcode that makes it). */
  let nextType: CallType | undefined;
  /** Per depth: the return data of the last call made at that depth (RETURNDATA of geth's OnOpcode). */
  const lastReturn: Uint8Array[] = [];
  const wrap = (op: number, before: (rs: RunState) => void): void => {
    const entry = original[op];
    if (entry === undefined) return;
    map[op] = { ...entry, opHandler: (rs, common) => (before(rs), entry.opHandler(rs, common)) };
  };
  if (hooks.onEnter || hooks.onExit) {
    for (const [op, type] of Object.entries(CALL_OPS)) {
      const entry = original[Number(op)];
      if (entry === undefined) continue;
      // A call that opens no frame (value above the balance, depth limit) must not type the next one.
      map[Number(op)] = {
        ...entry,
        opHandler: (rs, common) => {
          nextType = type;
          const done = entry.opHandler(rs, common);
          if (done instanceof Promise) return done.finally(() => void (nextType = undefined));
          nextType = undefined;
          return done;
        },
      };
    }
    wrap(0xff, (rs) => {
      const [beneficiary] = rs.stack.peek(1);
      const from = rs.interpreter.getAddress().bytes;
      const value = balanceOf(from);
      const depth = lastReturn.length;
      hooks.onEnter?.({ depth, type: 'SELFDESTRUCT', from, to: word20(beneficiary), input: new Uint8Array(0), gas: 0n, value });
      hooks.onExit?.({ depth, output: new Uint8Array(0), gasUsed: 0n, error: undefined, reverted: false, created: undefined });
    });
  }
  if (hooks.onLog) {
    const onLog = hooks.onLog;
    for (let n = 0; n <= 4; n++) {
      wrap(0xa0 + n, (rs) => {
        const items = rs.stack.peek(2 + n);
        const [offset, size] = items;
        const data = size === 0n ? new Uint8Array(0) : rs.memory.read(Number(offset), Number(size)).slice();
        onLog({ address: rs.interpreter.getAddress().bytes, topics: items.slice(2).map(word32), data });
      });
    }
  }
  if (hooks.onStorage) {
    const onStorage = hooks.onStorage;
    const touch = (rs: RunState): void => onStorage(rs.interpreter.getAddress().bytes, word32(rs.stack.peek(1)[0]));
    wrap(0x54, touch);
    wrap(0x55, touch);
  }
  if (tick) {
    // JUMPDEST starts every loop iteration: the deadline check, and every YIELD_EVERY of them one turn of the event
    // loop (the op is marked async so the library awaits it), so a trace run in-thread never stalls the node.
    const entry = original[0x5b];
    if (entry !== undefined) {
      let n = 0;
      const info = entry.opcodeInfo as Record<string, unknown>;
      map[0x5b] = {
        ...entry,
        opcodeInfo: { ...info, isAsync: true },
        opHandler: (rs, common) => {
          tick();
          entry.opHandler(rs, common);
          return ++n % YIELD_EVERY === 0 ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined;
        },
      };
    }
  }
  internals._opcodeMap = map;

  const listeners: [string, (...a: never[]) => void][] = [];
  const listen = (event: string, fn: (...a: never[]) => void): void => {
    internals.events.on(event, fn);
    listeners.push([event, fn]);
  };
  if (hooks.onEnter || hooks.onExit || hooks.onOpcode || tick) {
    listen('beforeMessage', (msg: MessageLike) => {
      tick?.();
      lastReturn[msg.depth] = new Uint8Array(0);
      let type: CallType = nextType ?? (msg.to === undefined ? (msg.salt ? 'CREATE2' : 'CREATE') : 'CALL');
      nextType = undefined;
      if (msg.depth === 0) type = msg.to === undefined ? 'CREATE' : 'CALL';
      const code = msg._codeAddress?.bytes;
      const from = type === 'DELEGATECALL' ? (msg.to?.bytes ?? msg.caller.bytes) : msg.caller.bytes;
      const to = type === 'DELEGATECALL' || type === 'CALLCODE' ? code : msg.to?.bytes;
      hooks.onEnter?.({
        depth: msg.depth,
        type,
        from,
        to,
        // Copies: the library hands out views into the caller's memory, which later ops overwrite.
        input: msg.data.slice(),
        gas: msg.gasLimit,
        value: type === 'STATICCALL' ? undefined : msg.value,
      });
    });
    listen('afterMessage', (result: ResultLike) => {
      const depth = lastReturn.length - 1;
      lastReturn.length = depth;
      const r = result.execResult;
      if (depth > 0) lastReturn[depth - 1] = r.returnValue;
      const raw = r.exceptionError?.error;
      hooks.onExit?.({
        depth,
        output: r.returnValue.slice(),
        gasUsed: r.executionGasUsed,
        error: raw === undefined ? undefined : gethError(raw),
        reverted: raw !== undefined,
        created: result.createdAddress?.bytes,
      });
    });
  }
  if (hooks.onOpcode) {
    const onOpcode = hooks.onOpcode;
    listen('step', (step: StepLike) => {
      onOpcode({
        pc: step.pc,
        op: step.opcode.code,
        opName: step.opcode.name,
        gas: step.gasLeft,
        cost: step.opcode.dynamicFee,
        depth: step.depth + 1,
        refund: step.gasRefund,
        stack: step.stack,
        memory: step.memory,
        address: step.address.bytes,
        returnData: lastReturn[step.depth] ?? new Uint8Array(0),
      });
    });
  }
  return () => {
    internals._opcodeMap = original;
    for (const [event, fn] of listeners) internals.events.off(event, fn);
  };
}

/** Map key of an address (unprefixed hex), re-exported for the tracers. */
export const addressKey = keyOf;
