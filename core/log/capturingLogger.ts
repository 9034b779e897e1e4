/**
 * A `Logger` that keeps every line in memory, for tests that assert what a component logged (a stall, a shed, a
 * slow block) without parsing stdout. It is a real implementation of the interface, not a mock: children share the
 * parent's record list and merge their bindings like pino does.
 */
import { LOG_LEVELS, type LogContext, type LogLevel, type Logger } from './types.ts';

/** One captured line: level, message and the merged fields (bindings first, then the call's context). */
export interface LogRecord {
  level: LogLevel;
  msg: string;
  ctx: LogContext;
}

/** A logger whose `records` holds every line written through it or any of its children. */
export interface CapturingLogger extends Logger {
  readonly records: LogRecord[];
}

/** Makes a capturing logger; `minLevel` drops lines below it (default: keep everything). */
export function createCapturingLogger(minLevel: LogLevel = 'trace'): CapturingLogger {
  const records: LogRecord[] = [];
  const min = LOG_LEVELS.indexOf(minLevel);
  const make = (bindings: LogContext): CapturingLogger => {
    const at =
      (level: LogLevel) =>
      (msg: string, ctx?: LogContext): void => {
        if (LOG_LEVELS.indexOf(level) >= min) records.push({ level, msg, ctx: { ...bindings, ...ctx } });
      };
    return {
      records,
      trace: at('trace'),
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      fatal: at('fatal'),
      child: (more) => make({ ...bindings, ...more }),
    };
  };
  return make({});
}

/** A logger that writes nothing (the default where a caller passes none). */
export const silentLogger: Logger = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  fatal: () => {},
  child: () => silentLogger,
};
