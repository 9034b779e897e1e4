/**
 * Tracing hooks over @ethereumjs/evm (geth's tracing.Hooks, the part the built-in tracers use): call frames from the
 * library's `beforeMessage` / `afterMessage` events, typed by the opcode that opened them (and, as geth shows them, a
 * frame with its error for a call the EVM refuses before it starts: depth limit, value above the balance), logs and
 * self-destructs from wrappers around those opcodes' handlers. Only a tracer that asks for every opcode (the struct
 * logger) gets a per-opcode hook; the others run at the fast loop's speed (decision 0027): message-level events only.
 * On the fast loop the opcode hook is its synchronous step hook; on the library's loop (fast interpreter off) the
 * library's `step` event. Attached to one EVM instance for one traced transaction, detached after.
 */
import type { EVM } from '@ethereumjs/evm';
import { bigIntToBytes, generateAddress, generateAddress2 } from '@ethereumjs/util';
import { isFastInterpreter, setStepHook, setStepWatch, type StepHook } from '../evm/fastInterpreter.ts';
import { keyOf } from '../../state/keys.ts';
import { writeWord } from '../evm/wordOps.ts';

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

/**
 * One opcode about to run (geth OnOpcode). The object and everything in it are valid only during the call: the fast
 * loop hands the same object each time, `stack` is the live stack store (its first `stackLength` items, bottom
 * first), `memory` and `returnData` views into the running frame (`memory` is empty unless the hooks ask for it).
 */
export interface OpcodeStep {
  pc: number;
  op: number;
  opName: string;
  gas: bigint;
  /** Static + dynamic gas of the op (for calls, without the gas passed on: the struct logger adds it). */
  cost: bigint;
  depth: number;
  refund: bigint;
  /** Bottom first; only the first `stackLength` items are the stack. */
  stack: readonly bigint[];
  stackLength: number;
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
  /** Whether `onOpcode` needs the memory (a view of it costs an object per step). */
  opcodeMemory?: boolean;
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

/** geth's errors for a call that never starts (core/vm/errors.go). */
const REFUSED_DEPTH = 'max call depth exceeded';
const REFUSED_BALANCE = 'insufficient balance for transfer';
const REFUSED_NONCE = 'nonce uint64 overflow';

/** geth's wording of an @ethereumjs/evm error text. */
export function gethError(error: string): string {
  return GETH_ERRORS[error] ?? error;
}

/** On the library's loop: JUMPDESTs between event-loop turns while tracing in-thread. */
const YIELD_EVERY = 128;
/** On the fast loop: opcodes between deadline checks, and the most time between event-loop turns. */
const STEPS_PER_CHECK = 1024;
const YIELD_AFTER_MS = 8;
/** The EVM's call depth limit (stackLimit) and a nonce's ceiling (EIP-2681). */
const DEPTH_LIMIT = 1024;
const MAX_NONCE = (1n << 64n) - 1n;
const CALL_STIPEND = 2300n;

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
interface TraceEnv {
  depth: number;
  address: { bytes: Uint8Array };
  callValue: bigint;
  contract: { balance: bigint; nonce: bigint };
}
interface RunState {
  programCounter: number;
  gasLeft: bigint;
  gasRefund: bigint;
  stack: { peek(n?: number): bigint[]; _store: bigint[]; _len: number };
  memory: { read(offset: number, size: number): Uint8Array; _store: Uint8Array };
  interpreter: { getAddress(): { bytes: Uint8Array }; _env: TraceEnv };
  returnBytes: Uint8Array;
  messageGasLimit?: bigint;
}
interface EvmInternals {
  _opcodeMap: (OpcodeEntry | undefined)[];
  DEBUG: boolean;
  common: { isActivatedEIP(eip: number): boolean };
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

// Stack words as bytes through DataView (a bigint shift per byte was ~2 % of a 200-call callTracer trace: every
// log topic goes through here).
const word20 = (w: bigint): Uint8Array => {
  const out = new Uint8Array(32);
  writeWord(out, 0, w & ((1n << 160n) - 1n));
  return out.slice(12);
};

const word32 = (w: bigint): Uint8Array => {
  const out = new Uint8Array(32);
  writeWord(out, 0, w);
  return out;
};

/** A call-family op about to run: what geth's OnEnter would show if the EVM refuses it before it starts. */
interface PendingCall {
  type: CallType;
  args: bigint[];
  error: string | undefined;
}

/** Why the EVM would refuse `type` before it starts (the library's `_baseCall` / `create` checks), if it would. */
function refusal(rs: RunState, type: CallType, args: bigint[]): string | undefined {
  const env = rs.interpreter._env;
  if (env.depth >= DEPTH_LIMIT) return REFUSED_DEPTH;
  const value = type === 'CALL' || type === 'CALLCODE' ? args[2] : type === 'CREATE' || type === 'CREATE2' ? args[0] : 0n;
  if (value > env.contract.balance) return REFUSED_BALANCE;
  if ((type === 'CREATE' || type === 'CREATE2') && env.contract.nonce >= MAX_NONCE) return REFUSED_NONCE;
  return undefined;
}

/** The frame geth shows for a refused call (gas as passed: with the stipend for a CALL with value). */
function refusedFrame(rs: RunState, p: PendingCall, gas: bigint): FrameEnter {
  const env = rs.interpreter._env;
  const from = env.address.bytes;
  const read = (offset: bigint, size: bigint): Uint8Array =>
    size === 0n ? new Uint8Array(0) : rs.memory.read(Number(offset), Number(size)).slice();
  const a = p.args;
  const depth = env.depth + 1;
  switch (p.type) {
    case 'CALL':
    case 'CALLCODE':
      return {
        depth,
        type: p.type,
        from,
        to: word20(a[1]),
        input: read(a[3], a[4]),
        gas: a[2] === 0n ? gas : gas + CALL_STIPEND,
        value: a[2],
      };
    case 'DELEGATECALL':
      return { depth, type: p.type, from, to: word20(a[1]), input: read(a[2], a[3]), gas, value: env.callValue };
    case 'STATICCALL':
      return { depth, type: p.type, from, to: word20(a[1]), input: read(a[2], a[3]), gas, value: undefined };
    default: {
      const input = read(a[1], a[2]);
      const to =
        p.type === 'CREATE2' ? generateAddress2(from, word32(a[3]), input) : generateAddress(from, bigIntToBytes(env.contract.nonce));
      return { depth, type: p.type, from, to, input, gas, value: a[0] };
    }
  }
}

const ARG_COUNT: Readonly<Record<CallType, number>> = {
  CALL: 7,
  CALLCODE: 7,
  DELEGATECALL: 6,
  STATICCALL: 6,
  CREATE: 3,
  CREATE2: 4,
  SELFDESTRUCT: 1,
};

/** What the wrapped opcode handlers of a traced table read: the trace attached now, and its per-run state. */
interface TraceContext {
  hooks: TraceHooks;
  balanceOf: (address: Uint8Array) => bigint;
  deadline: (() => void) | undefined;
  /** The type of the frame the next message opens (set by the opcode that makes it). */
  nextType: CallType | undefined;
  /** Messages the EVM has started so far (a call op that starts none was refused). */
  messages: number;
  /** Per depth: the return data of the last call made at that depth (library loop: RETURNDATA of geth's OnOpcode). */
  lastReturn: Uint8Array[];
  /** JUMPDESTs run (library loop: every YIELD_EVERY of them the event loop gets a turn). */
  jumpdests: number;
  /** A trace is attached through this table now. */
  active: boolean;
}

/** An opcode table with the hooks' wrappers, and the context they read. */
interface TracedTable {
  map: (OpcodeEntry | undefined)[];
  ctx: TraceContext;
}

/**
 * Traced tables kept per EVM table and kind of hooks: the fast loop caches jump analyses per table
 * (fastInterpreter.ts), so a table made afresh for every trace had every contract analysed again per trace (~3 % of
 * a 200-call callTracer trace, issue #15). The wrappers read the attached trace from their table's context.
 */
const tracedTables = new WeakMap<(OpcodeEntry | undefined)[], Map<string, TracedTable>>();

/** `original` with the wrappers `hooks` need (which hooks there are, not which functions, decides the table). */
function buildTracedTable(original: (OpcodeEntry | undefined)[], hooks: TraceHooks, fast: boolean): TracedTable {
  const map = [...original];
  const ctx: TraceContext = {
    hooks,
    balanceOf: () => 0n,
    deadline: undefined,
    nextType: undefined,
    messages: 0,
    lastReturn: [],
    jumpdests: 0,
    active: false,
  };
  const wrap = (op: number, before: (rs: RunState) => void): void => {
    const entry = original[op];
    if (entry === undefined) return;
    map[op] = { ...entry, opHandler: (rs, common) => (before(rs), entry.opHandler(rs, common)) };
  };
  if (hooks.onEnter || hooks.onExit) {
    for (const [op, type] of Object.entries(CALL_OPS)) {
      const entry = original[Number(op)];
      if (entry === undefined) continue;
      map[Number(op)] = {
        ...entry,
        opHandler: (rs, common) => {
          ctx.nextType = type;
          const seen = ctx.messages;
          // Read before the op pops them; the gas handler has already set the gas the call passes on.
          const args = rs.stack.peek(ARG_COUNT[type]);
          const pending: PendingCall = { type, args, error: refusal(rs, type, args) };
          const gas = rs.messageGasLimit ?? 0n;
          const after = (): void => {
            ctx.nextType = undefined;
            // A call that opens no frame: geth still shows one, with its error and no gas used.
            if (ctx.messages !== seen || pending.error === undefined) return;
            const frame = refusedFrame(rs, pending, gas);
            ctx.hooks.onEnter?.(frame);
            ctx.hooks.onExit?.({
              depth: frame.depth,
              output: new Uint8Array(0),
              gasUsed: 0n,
              error: pending.error,
              reverted: true,
              created: undefined,
            });
          };
          const done = entry.opHandler(rs, common);
          if (done instanceof Promise)
            return done.then(after, (err: unknown) => {
              ctx.nextType = undefined;
              throw err;
            });
          after();
          return done;
        },
      };
    }
    wrap(0xff, (rs) => {
      const [beneficiary] = rs.stack.peek(1);
      const from = rs.interpreter.getAddress().bytes;
      const value = ctx.balanceOf(from);
      const depth = ctx.lastReturn.length;
      ctx.hooks.onEnter?.({ depth, type: 'SELFDESTRUCT', from, to: word20(beneficiary), input: new Uint8Array(0), gas: 0n, value });
      ctx.hooks.onExit?.({ depth, output: new Uint8Array(0), gasUsed: 0n, error: undefined, reverted: false, created: undefined });
    });
  }
  if (hooks.onLog) {
    for (let n = 0; n <= 4; n++) {
      wrap(0xa0 + n, (rs) => {
        const items = rs.stack.peek(2 + n);
        const [offset, size] = items;
        const data = size === 0n ? new Uint8Array(0) : rs.memory.read(Number(offset), Number(size)).slice();
        ctx.hooks.onLog?.({ address: rs.interpreter.getAddress().bytes, topics: items.slice(2).map(word32), data });
      });
    }
  }
  if (hooks.onStorage) {
    const touch = (rs: RunState): void => ctx.hooks.onStorage?.(rs.interpreter.getAddress().bytes, word32(rs.stack.peek(1)[0]));
    wrap(0x54, touch);
    wrap(0x55, touch);
  }
  if (!fast) {
    // JUMPDEST starts every loop iteration: the deadline check, and every YIELD_EVERY of them one turn of the event
    // loop (the op is marked async so the library awaits it), so a trace run in-thread never stalls the node.
    const entry = map[0x5b];
    if (entry !== undefined) {
      const info = entry.opcodeInfo as Record<string, unknown>;
      map[0x5b] = {
        ...entry,
        opcodeInfo: { ...info, isAsync: true },
        opHandler: (rs, common) => {
          ctx.deadline?.();
          entry.opHandler(rs, common);
          return ++ctx.jumpdests % YIELD_EVERY === 0 ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined;
        },
      };
    }
  }
  return { map, ctx };
}

/** The traced table for `original` and this kind of hooks, made once and reused while no other trace holds it. */
function tracedTable(original: (OpcodeEntry | undefined)[], hooks: TraceHooks, fast: boolean): TracedTable {
  const kind = `${hooks.onEnter || hooks.onExit ? 1 : 0}${hooks.onLog ? 1 : 0}${hooks.onStorage ? 1 : 0}${fast ? 1 : 0}`;
  let byKind = tracedTables.get(original);
  if (byKind === undefined) {
    byKind = new Map();
    tracedTables.set(original, byKind);
  }
  const kept = byKind.get(kind);
  if (kept !== undefined && !kept.ctx.active) return kept;
  const made = buildTracedTable(original, hooks, fast);
  // A trace attached over another on the same table (not done today) gets a table of its own, not kept.
  if (kept === undefined) byKind.set(kind, made);
  return made;
}

/**
 * Attaches `hooks` to `evm` and returns the function that detaches them. `balanceOf` reads the current state (the
 * SELFDESTRUCT frame's value); `deadline` is checked at every call frame and every so many opcodes and stops the
 * run by throwing. While a trace runs, the event loop gets a turn every few milliseconds (a trace run in-thread must
 * not stall the node).
 */
export function attachHooks(evm: EVM, hooks: TraceHooks, balanceOf: (address: Uint8Array) => bigint, deadline?: () => void): () => void {
  const internals = evm as unknown as EvmInternals;
  const fast = isFastInterpreter(evm) && !internals.DEBUG && !internals.common.isActivatedEIP(7928);
  const original = internals._opcodeMap;
  const table = tracedTable(original, hooks, fast);
  const ctx = table.ctx;
  ctx.hooks = hooks;
  ctx.balanceOf = balanceOf;
  ctx.deadline = deadline;
  ctx.nextType = undefined;
  ctx.messages = 0;
  ctx.lastReturn = [];
  ctx.jumpdests = 0;
  ctx.active = true;
  const lastReturn = ctx.lastReturn;
  let restoreWatch: (() => void) | undefined;
  if (fast) {
    // Deadline checks and event-loop turns from the fast loop's step watch: no opcode handler becomes async.
    let lastTurn = performance.now();
    const before = setStepWatch(evm, {
      every: STEPS_PER_CHECK,
      count: 0,
      check: () => {
        deadline?.();
        if (performance.now() - lastTurn < YIELD_AFTER_MS) return undefined;
        return new Promise<void>((resolve) =>
          setImmediate(() => {
            lastTurn = performance.now();
            resolve();
          }),
        );
      },
    });
    restoreWatch = () => void setStepWatch(evm, before);
  }
  // The fast loop keeps jump analyses per table (fastInterpreter.ts): this table's stay with it for the next trace.
  internals._opcodeMap = table.map;

  const listeners: [string, (...a: never[]) => void][] = [];
  const listen = (event: string, fn: (...a: never[]) => void): void => {
    internals.events.on(event, fn);
    listeners.push([event, fn]);
  };
  listen('beforeMessage', (msg: MessageLike) => {
    deadline?.();
    ctx.messages++;
    lastReturn[msg.depth] = new Uint8Array(0);
    if (!hooks.onEnter) return;
    let type: CallType = ctx.nextType ?? (msg.to === undefined ? (msg.salt ? 'CREATE2' : 'CREATE') : 'CALL');
    ctx.nextType = undefined;
    if (msg.depth === 0) type = msg.to === undefined ? 'CREATE' : 'CALL';
    const code = msg._codeAddress?.bytes;
    const from = type === 'DELEGATECALL' ? (msg.to?.bytes ?? msg.caller.bytes) : msg.caller.bytes;
    const to = type === 'DELEGATECALL' || type === 'CALLCODE' ? code : msg.to?.bytes;
    hooks.onEnter({
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
    if (!hooks.onExit) return;
    const raw = r.exceptionError?.error;
    hooks.onExit({
      depth,
      output: r.returnValue.slice(),
      gasUsed: r.executionGasUsed,
      error: raw === undefined ? undefined : gethError(raw),
      reverted: raw !== undefined,
      created: result.createdAddress?.bytes,
    });
  });
  if (hooks.onOpcode && fast) {
    const onOpcode = hooks.onOpcode;
    const withMemory = hooks.opcodeMemory === true;
    const empty = new Uint8Array(0);
    // One object for every step (the struct logger reads it at once): a 100,000-step trace allocates none per step.
    const step: OpcodeStep = {
      pc: 0,
      op: 0,
      opName: '',
      gas: 0n,
      cost: 0n,
      depth: 0,
      refund: 0n,
      stack: [],
      stackLength: 0,
      memory: empty,
      address: empty,
      returnData: empty,
    };
    const hook: StepHook = (interp, info, gas, memoryWords) => {
      const rs = interp._runState as unknown as RunState;
      const env = rs.interpreter._env;
      step.pc = rs.programCounter;
      step.op = info.code;
      step.opName = info.fullName;
      step.gas = rs.gasLeft;
      step.cost = gas;
      step.depth = env.depth + 1;
      step.refund = rs.gasRefund;
      step.stack = rs.stack._store;
      step.stackLength = rs.stack._len;
      step.memory = withMemory ? rs.memory._store.subarray(0, Number(memoryWords) * 32) : empty;
      step.address = env.address.bytes;
      step.returnData = rs.returnBytes;
      onOpcode(step);
    };
    setStepHook(evm, hook);
  } else if (hooks.onOpcode) {
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
        stackLength: step.stack.length,
        memory: step.memory,
        address: step.address.bytes,
        returnData: lastReturn[step.depth] ?? new Uint8Array(0),
      });
    });
  }
  return () => {
    internals._opcodeMap = original;
    ctx.active = false;
    if (fast) {
      setStepHook(evm, undefined);
      restoreWatch?.();
    }
    for (const [event, fn] of listeners) internals.events.off(event, fn);
  };
}

/** Both tracers' hooks on one run (trace_replay*: the flat traces with the vmTrace). */
export function mergeHooks(a: TraceHooks, b: TraceHooks): TraceHooks {
  const both = <T extends unknown[]>(x?: (...v: T) => void, y?: (...v: T) => void): ((...v: T) => void) | undefined =>
    x && y ? (...v: T) => (x(...v), y(...v)) : (x ?? y);
  const out: TraceHooks = { opcodeMemory: a.opcodeMemory === true || b.opcodeMemory === true };
  const onEnter = both(a.onEnter, b.onEnter);
  const onExit = both(a.onExit, b.onExit);
  const onOpcode = both(a.onOpcode, b.onOpcode);
  const onLog = both(a.onLog, b.onLog);
  const onStorage = both(a.onStorage, b.onStorage);
  if (onEnter) out.onEnter = onEnter;
  if (onExit) out.onExit = onExit;
  if (onOpcode) out.onOpcode = onOpcode;
  if (onLog) out.onLog = onLog;
  if (onStorage) out.onStorage = onStorage;
  return out;
}

/** Map key of an address (unprefixed hex), re-exported for the tracers. */
export const addressKey = keyOf;
