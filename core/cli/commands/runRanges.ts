/**
 * The accepted range of every numeric `xone run` flag, in one table: the command checks each value against it
 * (wherever the value came from: flag, XONE_* variable or config file) and docs/cli.md lists the same ranges
 * (test/cli/cliDoc.test.ts keeps them equal). Every value in range is safe to run with: the RPC's expensive work runs
 * in the execution pool under a deadline, so no value can make one request stall the main loop or the chain thread.
 */
import { MAX_RPC_WORKERS } from '../../rpcPool/options.ts';

export const RUN_FLAG_RANGES = {
  '--http.port': [0, 65_535],
  '--batch': [0, 128],
  '--recovery-workers': [0, 256],
  '--period': [1, 3_600],
  /** Up to 1e11 gas: a call's EVM memory is bounded by its gas (about 230 MB at the top of the range). */
  '--rpc.gascap': [1, 100_000_000_000],
  /** At most the request deadline (30 s): a longer budget would always end as -32002 first. */
  '--rpc.evmtimeout': [1, 30_000],
  '--rpc.workers': [1, MAX_RPC_WORKERS],
  /** Batches yield the main loop between calls, so a big batch delays others by at most a few ms at a time. */
  '--rpc.batch-request-limit': [1, 100_000],
  '--rpc.batch-response-max-size': [1, 1_000_000_000],
  '--http.ratelimit': [1, 1_000_000],
  '--http.ratelimit.burst': [1, 10_000_000],
  '--debug.logslowblock': [0, 86_400_000],
} as const satisfies Record<string, readonly [number, number]>;

export type RangedFlag = keyof typeof RUN_FLAG_RANGES;

/** The integer value of `flag`, or an error naming the flag, its range and what was given. */
export function rangedInt(text: string, flag: RangedFlag): number {
  const [min, max] = RUN_FLAG_RANGES[flag];
  const n = Number(text);
  if (!/^-?[0-9]+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new Error(`${flag} must be an integer ${min}..${max}, got ${text}`);
  }
  return n;
}
