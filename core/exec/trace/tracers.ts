/**
 * The built-in tracers by geth's names, each as hooks plus a way to read the answer once the transaction is done.
 * A JavaScript tracer is not supported; an unknown name is refused before anything runs (`tracerNames`).
 */
import type { BlockOverrides } from '../types.ts';
import { CallTracer, type CallTracerConfig } from './callTracer.ts';
import { flatCallJson } from './flatCallTracer.ts';
import { FourByteTracer } from './fourByteTracer.ts';
import { JsonText } from './jsonText.ts';
import type { TraceHooks } from './hooks.ts';
import { StructLogger, type StructLoggerConfig } from './structLogger.ts';
import type { PrestateTracerConfig } from './prestateTracer.ts';

export { JsonText };

export const TRACER_NAMES = ['callTracer', 'prestateTracer', '4byteTracer', 'noopTracer', 'flatCallTracer'] as const;
export type TracerName = (typeof TRACER_NAMES)[number];

/** What a trace request asks for: geth's TraceConfig (struct logger options at its top level). */
export interface TraceSpec {
  /** Absent = the struct logger. */
  tracer?: TracerName;
  tracerConfig?: CallTracerConfig & PrestateTracerConfig & { convertParityErrors?: boolean; includePrecompiles?: boolean };
  logger?: StructLoggerConfig;
  /** debug_traceCall: the block the call runs in, where it differs from the one named (geth's BlockOverrides). */
  block?: TraceBlockOverrides;
  /** trace_replay*: the Parity vmTrace and/or stateDiff beside the flatCallTracer's traces (answer: ReplayResult). */
  replay?: { vmTrace: boolean; stateDiff: boolean };
}

export type TraceBlockOverrides = BlockOverrides;

/** A trace_replay* answer for one transaction: the flat traces and, when asked, the vmTrace and stateDiff. */
export interface ReplayResult {
  trace: unknown;
  vmTrace: unknown;
  stateDiff: unknown;
}

/** What a finished transaction tells its tracer. */
export interface TxOutcome {
  gasLimit: bigint;
  gasUsed: bigint;
  failed: boolean;
  /** Return data, or revert data; empty for other failures. */
  returnValue: Uint8Array;
  /** The transaction's context (flatCallTracer's blockHash, position). */
  context: TxContext;
}

/** Where the traced transaction sits. */
export interface TxContext {
  blockHash: Uint8Array;
  blockNumber: bigint;
  txHash: Uint8Array | undefined;
  txIndex: number;
  /** Logs of the block's earlier transactions (the first log index of this one). */
  logIndex: number;
}

export interface ActiveTracer {
  hooks: TraceHooks;
  /** The answer: a JSON value, or JSON text (the struct logger builds its text as it goes). */
  result(outcome: TxOutcome): unknown;
  /** The prestate tracer runs on a recording overlay (set up by the caller); the others never need it. */
  prestate?: PrestateTracerConfig;
}

export interface TracerDeps {
  isPrecompile(address: Uint8Array): boolean;
  readSlot(address: Uint8Array, slot: bigint): bigint;
  maxBytes: number;
}

export function createTracer(spec: TraceSpec, deps: TracerDeps, context: TxContext): ActiveTracer {
  switch (spec.tracer) {
    case undefined: {
      const logger = new StructLogger(spec.logger, deps.readSlot, deps.maxBytes);
      return { hooks: logger.hooks, result: (o) => new JsonText(logger.result(o.gasUsed, o.failed, o.returnValue)) };
    }
    case 'callTracer': {
      const t = new CallTracer(spec.tracerConfig, context.logIndex);
      return { hooks: t.hooks, result: (o) => t.result(o.gasLimit, o.gasUsed) };
    }
    case 'flatCallTracer': {
      const t = new CallTracer({}, context.logIndex);
      return {
        hooks: t.hooks,
        result: (o) => flatCallJson(t.frame(o.gasLimit, o.gasUsed), o.context, deps.isPrecompile, spec.tracerConfig ?? {}),
      };
    }
    case '4byteTracer': {
      const t = new FourByteTracer(deps.isPrecompile);
      return { hooks: t.hooks, result: () => t.result() };
    }
    case 'noopTracer':
      return { hooks: {}, result: () => ({}) };
    case 'prestateTracer':
      return { hooks: {}, result: () => null, prestate: spec.tracerConfig ?? {} };
  }
}
