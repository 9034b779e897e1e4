/**
 * The method table: each namespace file returns `Record<name, MethodSpec>`; the dispatcher looks a name up, checks
 * dev/shedding flags, decodes params with the spec's decoders and runs the handler under the call's deadline.
 */
import { type Param, type ParamValues, parsePositional } from './params.ts';

/** What a handler knows about the call it serves. */
export interface CallContext {
  /** Fires at the call's deadline (or when the client goes away); long reads check it between rows. */
  signal: AbortSignal;
  /** Deadline as epoch milliseconds. */
  deadline: number;
  clientIp: string;
  /** Fairness key of the execution pool: `clientIp`, or the client a trusted gateway named (`X-Xone-Client`). */
  client: string;
  transport: 'http' | 'ws';
  /** The WebSocket connection, for eth_subscribe / eth_unsubscribe. */
  connection?: RpcConnection;
}

/** A persistent connection that can receive subscription notifications. */
export interface RpcConnection {
  readonly id: number;
  /** Sends one JSON text frame (dropped if the socket is gone). */
  send(json: string): void;
  /** Registers cleanup to run when the connection closes. */
  onClose(fn: () => void): void;
}

export interface MethodSpec {
  /** Decodes params and runs; may return RawJson for pre-encoded results. */
  run(params: unknown, ctx: CallContext): unknown;
  /** Refused with -32005 while the node sheds load. */
  expensive?: boolean;
}

/** Declares a method from param decoders and a typed handler. */
export function method<const P extends readonly Param<unknown>[]>(
  params: P,
  handler: (args: ParamValues<P>, ctx: CallContext) => unknown,
  flags: { expensive?: boolean } = {},
): MethodSpec {
  return { run: (raw, ctx) => handler(parsePositional(raw, params), ctx), expensive: flags.expensive };
}

export type MethodTable = Record<string, MethodSpec>;
