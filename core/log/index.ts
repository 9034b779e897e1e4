/** Public surface of the logging seam: the `Logger` interface, the pino factory, and a capturing logger for tests. */
export { LOG_LEVELS, isLogLevel, type LogContext, type LogLevel, type Logger } from './types.ts';
export { createLogger, type CreateLoggerOptions } from './pinoLogger.ts';
export { terminalDestination, terminalLine } from './terminalLines.ts';
export { createCapturingLogger, silentLogger, type CapturingLogger, type LogRecord } from './capturingLogger.ts';
export { REDACTED } from './redact.ts';
