/**
 * The production `Logger`: pino writing one JSON object per line, level as a label (`"level":"warn"`, the shape
 * geth's "Slow block" line uses), ISO time, secrets redacted. pino is the well-kept fast choice for Node (ADR 0002's
 * "prefer libraries" rule); we wrap it only to give modules the small `Logger` interface with message first.
 */
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { lineFields } from './redact.ts';
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
  const safe = lineFields(redactKeys);
  const base = pino(
    {
      level,
      name,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.err },
    },
    dest,
  );
  return wrap(base, safe);
}

function wrap(p: PinoLogger, safe: (ctx: LogContext) => LogContext): Logger {
  const at =
    (level: LogLevel) =>
    (msg: string, ctx?: LogContext): void => {
      if (ctx === undefined) p[level](msg);
      // Secrets and bigints in one walk of the line's fields (redact.ts says why not pino's `redact` paths); not for a
      // line below the level.
      else if (p.isLevelEnabled(level)) p[level](safe(ctx), msg);
    };
  return {
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    child: (bindings) => wrap(p.child(safe(bindings)), safe),
  };
}
