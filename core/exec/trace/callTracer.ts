/**
 * geth's callTracer (eth/tracers/native/call.go): the tree of call frames with gas, input, output, errors, revert
 * reasons, optional logs (`withLog`, each with its `position` among the frame's calls; dropped with a failed frame)
 * and `onlyTopCall`. The JSON keys come in geth's order (gencodec of callFrame): from, gas, gasUsed, to, input, output,
 * error, revertReason, calls, logs, value, type.
 */
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';
import { revertReason } from '../../primitives/revertReason.ts';
import type { CallType, FrameEnter, FrameExit, LogEvent, TraceHooks } from './hooks.ts';
import { JsonText } from './jsonText.ts';

export interface CallTracerConfig {
  onlyTopCall?: boolean;
  withLog?: boolean;
}

export interface CallFrame {
  type: CallType;
  from: Uint8Array;
  to: Uint8Array | undefined;
  input: Uint8Array;
  output?: Uint8Array;
  gas: bigint;
  gasUsed: bigint;
  value: bigint | undefined;
  error?: string;
  revertReason?: string;
  calls: CallFrame[];
  logs: { address: Uint8Array; topics: Uint8Array[]; data: Uint8Array; position: number; index: number }[];
  /** Logs of the transaction before this frame opened (a failed frame gives its log indexes back). */
  logsAtEntry: number;
}

/** The tracer: its hooks, then `result(...)` once the transaction is done. */
export class CallTracer {
  private readonly stack: CallFrame[] = [];
  private root: CallFrame | undefined;
  /** Surviving logs so far: the next log's index (geth's log.Index; `logIndexBase` = logs of earlier transactions). */
  private logCount: number;

  constructor(
    private readonly config: CallTracerConfig = {},
    logIndexBase = 0,
  ) {
    this.logCount = logIndexBase;
  }

  readonly hooks: TraceHooks = {
    onEnter: (f: FrameEnter) => {
      if (this.config.onlyTopCall && f.depth > 0) return;
      const frame: CallFrame = {
        type: f.type,
        from: f.from,
        to: f.to,
        input: f.input,
        gas: f.gas,
        gasUsed: 0n,
        value: f.value,
        calls: [],
        logs: [],
        logsAtEntry: this.logCount,
      };
      if (f.depth === 0) this.root = frame;
      else this.stack[this.stack.length - 1]?.calls.push(frame);
      this.stack.push(frame);
    },
    onExit: (f: FrameExit) => {
      if (this.config.onlyTopCall && f.depth > 0) return;
      const frame = this.stack.pop();
      if (!frame) return;
      frame.gasUsed = f.gasUsed;
      if (f.created && frame.to === undefined) frame.to = f.created;
      if (f.error === undefined) {
        frame.output = f.output;
        return;
      }
      frame.error = f.error;
      this.logCount = frame.logsAtEntry;
      if (frame.type === 'CREATE' || frame.type === 'CREATE2') frame.to = undefined;
      // geth drops the logs of a failed frame and of every call under it.
      clearLogs(frame);
      if (f.error !== 'execution reverted' || f.output.length === 0) return;
      frame.output = f.output;
      const reason = revertReason(f.output);
      if (reason !== null) frame.revertReason = reason;
    },
    onLog: (l: LogEvent) => {
      const index = this.logCount++;
      if (!this.config.withLog) return;
      const frame = this.stack[this.stack.length - 1];
      if (frame) frame.logs.push({ ...l, position: frame.calls.length, index });
    },
  };

  /** The top frame; geth reports the transaction's gas limit and its receipt's gas used there. */
  frame(gasLimit: bigint, gasUsed: bigint): CallFrame | undefined {
    if (this.root) {
      this.root.gas = gasLimit;
      this.root.gasUsed = gasUsed;
    }
    return this.root;
  }

  /** The answer as JSON text (null before any frame opened). */
  result(gasLimit: bigint, gasUsed: bigint): JsonText | null {
    const root = this.frame(gasLimit, gasUsed);
    return root ? new JsonText(callFrameText(root)) : null;
  }
}

function clearLogs(frame: CallFrame): void {
  frame.logs = [];
  for (const c of frame.calls) clearLogs(c);
}

/**
 * One frame as geth's JSON text, written directly: a 200-call trace made ~1,400 short-lived objects and strings for
 * JSON.stringify to walk (~4 % of the trace, issue #15). Every value is a hex string or a fixed word except the error
 * texts, which are escaped.
 */
export function callFrameText(f: CallFrame): string {
  let out = `{"from":"${bytesToHex(f.from)}","gas":"${toQuantity(f.gas)}","gasUsed":"${toQuantity(f.gasUsed)}"`;
  if (f.to !== undefined) out += `,"to":"${bytesToHex(f.to)}"`;
  out += `,"input":"${bytesToHex(f.input)}"`;
  if (f.output !== undefined && f.output.length > 0) out += `,"output":"${bytesToHex(f.output)}"`;
  if (f.error !== undefined) out += `,"error":${JSON.stringify(f.error)}`;
  if (f.revertReason !== undefined) out += `,"revertReason":${JSON.stringify(f.revertReason)}`;
  if (f.calls.length > 0) {
    out += ',"calls":[';
    for (let i = 0; i < f.calls.length; i++) out += (i === 0 ? '' : ',') + callFrameText(f.calls[i] as CallFrame);
    out += ']';
  }
  if (f.logs.length > 0) {
    out += ',"logs":[';
    for (let i = 0; i < f.logs.length; i++) {
      const l = f.logs[i] as CallFrame['logs'][number];
      let topics = '';
      for (let t = 0; t < l.topics.length; t++) topics += `${t === 0 ? '' : ','}"${bytesToHex(l.topics[t] as Uint8Array)}"`;
      out +=
        `${i === 0 ? '' : ','}{"address":"${bytesToHex(l.address)}","topics":[${topics}],"data":"${bytesToHex(l.data)}",` +
        `"position":"${toQuantity(l.position)}","index":"${toQuantity(l.index)}"}`;
    }
    out += ']';
  }
  if (f.value !== undefined) out += `,"value":"${toQuantity(f.value)}"`;
  return `${out},"type":"${f.type}"}`;
}
