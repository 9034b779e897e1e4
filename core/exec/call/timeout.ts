/**
 * geth's answer for a call stopped by --rpc.evmtimeout: -32000 "execution aborted (timeout = 5s)", the budget in Go's
 * duration format. A file of its own (no EVM import) so the main thread can word the error without loading the EVM.
 */
import { CallError, defaultCallOptions, type CallOptions } from './types.ts';

/** The CALL_TIMEOUT error of a call with these options. */
export function callTimeout(opts: Pick<CallOptions, 'timeoutMs'>): CallError {
  const ms = opts.timeoutMs ?? defaultCallOptions.timeoutMs;
  return new CallError('CALL_TIMEOUT', `execution aborted (timeout = ${goDuration(ms)})`, { timeoutMs: ms });
}

/** A millisecond count as Go's time.Duration prints it: 5s, 1.5s, 250ms, 1m30s. */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Number(((ms - minutes * 60_000) / 1000).toFixed(3));
  if (minutes === 0) return `${seconds}s`;
  return seconds === 0 ? `${minutes}m0s` : `${minutes}m${seconds}s`;
}
