/**
 * The production `Logger`: pino writing one JSON object per line, level as a label (`"level":"warn"`, the shape
 * geth's "Slow block" line uses), ISO time, secrets redacted. pino is the well-kept fast choice for Node (ADR 0002's
 * "prefer libraries" rule); we wrap it only to give modules the small `Logger` interface with message first.
 */
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { REDACTED, redactionPaths } from './redact.ts';
import type { LogContext, LogLevel, Logger } from './types.ts';

export interface CreateLoggerOptions {
  /** Lowest level written (default 'info'). */
  level?: LogLevel;
  /** Bound as `name` on every line (e.g. 'xone'). */
  name?: string;
  /**
   * Where lines go: a file descriptor (written synchronously, so a line survives an abrupt exit and can be written
   * from a worker thread while the main loop is blocked), or a stream. Default: fd 1 (stdout).
   */
  destination?: number | DestinationStream;
  /** More keys to redact, besides the built-in secret list. */
  redactKeys?: readonly string[];
}

/** Builds a pino-backed logger (no module-level instance: the composition root makes one and passes children down). */
export function createLogger({ level = 'info', name, destination = 1, redactKeys = [] }: CreateLoggerOptions = {}): Logger {
  const dest = typeof destination === 'number' ? pino.destination({ dest: destination, sync: true }) : destination;
  const base = pino(
    {
      level,
      name,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: redactionPaths(redactKeys), censor: REDACTED },
      serializers: { err: pino.stdSerializers.err },
      hooks: { logMethod: bigintSafe },
    },
    dest,
  );
  return wrap(base);
}

/** pino's JSON writer throws on bigint; convert bigint fields (top level and one down) to decimal strings first. */
function bigintSafe(this: PinoLogger, args: Parameters<PinoLogger['info']>, method: (...a: unknown[]) => void): void {
  const [first] = args as unknown[];
  if (first !== null && typeof first === 'object') (args as unknown[])[0] = stringifyBigints(first as LogContext, 1);
  method.apply(this, args as unknown[]);
}

function stringifyBigints(ctx: LogContext, depth: number): LogContext {
  let out: LogContext | undefined;
  for (const [k, v] of Object.entries(ctx)) {
    let nv = v;
    if (typeof v === 'bigint') nv = v.toString();
    else if (depth > 0 && v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Error))
      nv = stringifyBigints(v as LogContext, depth - 1);
    if (nv !== v) (out ??= { ...ctx })[k] = nv;
  }
  return out ?? ctx;
}

function wrap(p: PinoLogger): Logger {
  const at =
    (level: LogLevel) =>
    (msg: string, ctx?: LogContext): void => {
      if (ctx === undefined) p[level](msg);
      else p[level](ctx, msg);
    };
  return {
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    child: (bindings) => wrap(p.child(bindings)),
  };
}
