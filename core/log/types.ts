/**
 * The logging seam every module takes (`(options, { logger })`), so a test can pass a capturing logger and the node
 * can pass a pino child. Structured, Lodestar style: `log.info('Imported block', { number })`, never a formatted
 * string.
 */

/** Levels in increasing severity (pino's names and order). */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Fields attached to one line; values must be JSON-serialisable (bigint is written as a decimal string). */
export type LogContext = Record<string, unknown>;

/** A structured logger: one method per level plus `child` to bind fields (e.g. `{ module: 'chain' }`). */
export interface Logger {
  trace(msg: string, ctx?: LogContext): void;
  debug(msg: string, ctx?: LogContext): void;
  info(msg: string, ctx?: LogContext): void;
  warn(msg: string, ctx?: LogContext): void;
  error(msg: string, ctx?: LogContext): void;
  fatal(msg: string, ctx?: LogContext): void;
  child(bindings: LogContext): Logger;
}

/** True when `value` names a level. */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}
