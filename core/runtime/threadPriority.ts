/**
 * Lets the node's RPC thread run first when the import threads and it want the same core (issue #18: eth_blockNumber
 * p99 during import). On Linux, setpriority(PRIO_PROCESS, 0, n) sets the nice value of the calling thread only, so a
 * follower's chain thread and recovery workers can step back while the main thread, which answers RPC, keeps its own.
 * On a 2-core host a follower's chain thread, two recovery workers and the main thread share two cores; a request
 * arriving while both are busy waited for a time slice. A nicer import thread still gets every cycle nobody else
 * wants. Elsewhere (macOS applies it to the whole process) it does nothing.
 */
import { getPriority, setPriority } from 'node:os';

/**
 * Nice steps the import threads take below the main thread: a nice-5 thread weighs ~1/3 of a nice-0 one, and still
 * ~3x an RPC pool worker lowered to nice 10 for a long job (decision 0030), so an attacker's endless eth_call does not
 * take the import's CPU. Nice 10 measured the same for RPC latency (decision 0041).
 */
export const IMPORT_THREAD_NICE = 5;

/**
 * Sets the calling thread's nice value to the main thread's plus `steps` (at most 19); false where it cannot (not
 * Linux, refused). Counted from the main thread (its id is the pid), not from this thread: a thread inherits its
 * creator's nice, and the recovery workers are started by the already lowered chain thread.
 */
export function lowerThreadPriority(steps: number = IMPORT_THREAD_NICE): boolean {
  if (process.platform !== 'linux') return false;
  try {
    setPriority(Math.min(19, getPriority(process.pid) + steps));
    return true;
  } catch {
    return false;
  }
}
