/**
 * Test hooks read from the environment. They are inert unless their variable is set, and exist only so that a test
 * can drive a real `xone run` process into a state that cannot be reached from outside (docs/cli.md, "Test hooks").
 *
 * XONE_TEST_BLOCK_MAIN_MS=<ms>: once the node has started, block the main event loop for <ms> milliseconds (after
 * XONE_TEST_BLOCK_MAIN_DELAY_MS, default 300), as a runaway synchronous task would; the watchdog must shed load at
 * 100 ms, log an error at 2 s and end the process at 10 s. The release line reports the shedding flag the RPC reads.
 *
 * XONE_TEST_RPC_IN_LOOP=1: run the pool's jobs (eth_call / estimateGas / createAccessList / getLogs / getProof) on
 * the main loop (the in-thread executor) instead of the execution pool, as the node did before it had one:
 * bench:rpc-isolation's in-loop comparison, and the load-shedding test that needs a read to stall the loop.
 *
 * XONE_TEST_DISK_FULL_FILE=<path>: while that file exists, the chain thread's segment writes fail with ENOSPC, as on a
 * full disk (an injected fault; the store, the producer and the tx pool are the real ones): test/node/diskFull.test.ts.
 */
import type { Logger } from '../log/types.ts';

/** Schedules the main-loop block when XONE_TEST_BLOCK_MAIN_MS is set; does nothing otherwise. */
export function blockMainLoopForTest(logger: Logger, shedding: () => boolean, env: NodeJS.ProcessEnv = process.env): void {
  const ms = Number(env.XONE_TEST_BLOCK_MAIN_MS ?? 0);
  if (!(ms > 0)) return;
  const delay = Number(env.XONE_TEST_BLOCK_MAIN_DELAY_MS ?? 300);
  setTimeout(() => {
    logger.warn('test hook: blocking the main loop', { ms });
    // Atomics.wait sleeps the thread without burning CPU; nothing else on this thread runs meanwhile.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    // Read before anything else on this thread runs: this is what the RPC's `shed` saw during the stall.
    logger.warn('test hook: main loop released', { ms, shedding: shedding() });
  }, delay);
}

/** True when XONE_TEST_RPC_IN_LOOP asks for the in-thread executor (bench:rpc-isolation only). */
export const rpcInLoopForTest = (env: NodeJS.ProcessEnv = process.env): boolean => env.XONE_TEST_RPC_IN_LOOP === '1';

/** The flag file of XONE_TEST_DISK_FULL_FILE (the disk is full while it exists), or undefined. */
export const diskFullFileForTest = (env: NodeJS.ProcessEnv = process.env): string | undefined => env.XONE_TEST_DISK_FULL_FILE || undefined;
