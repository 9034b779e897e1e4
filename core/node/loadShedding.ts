/**
 * When the RPC server refuses an expensive call because the main loop is late (the watchdog's flag, 100 ms).
 *
 * With the execution pool on, expensive calls run on pool threads, not on the main loop: a late loop with no pool call
 * waiting is the host's doing (a busy laptop, a shared CI runner), and refusing one more call would fail a dev node's
 * only user and spare the loop nothing. The work is ours, and shedding helps, while pool calls wait (an attack or a
 * burst). With the pool off, expensive calls run on the main loop itself: always shed while the flag is up.
 */
export interface SheddingInputs {
  /** The watchdog's flag: the main loop's heartbeat is 100 ms late. */
  loopLate(): boolean;
  /** Pool calls not started yet; undefined when the pool is off (expensive calls run on the main loop). */
  poolWaiting?: () => number;
}

export function shedExpensiveCalls(inputs: SheddingInputs): () => boolean {
  const { loopLate, poolWaiting } = inputs;
  if (!poolWaiting) return loopLate;
  return () => loopLate() && poolWaiting() > 0;
}
