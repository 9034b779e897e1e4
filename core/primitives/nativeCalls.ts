/**
 * Calls into native addons (libsecp256k1, c-kzg) announce themselves to whoever may terminate this thread.
 * Terminating a worker thread while it is inside such a call aborts the whole process: the addon's next N-API call
 * fails, node-addon-api throws a C++ Napi::Error nothing catches, and the runtime calls std::terminate ('terminate
 * called after throwing an instance of Napi::Error', reproduced with secp256k1 recovery in a loop). A thread whose
 * owner may terminate it registers one cell of shared memory with `guardNativeCalls`; `nativeCall` marks the cell busy
 * around each addon call, and the owner terminates only after `closeNativeCalls` has claimed the cell (no call is
 * running, and none can start). Threads that never register (the main thread) pay one check per call.
 */

/** The cell's states. */
const FREE = 0;
const BUSY = 1;
const CLOSED = 2;

let cell: Int32Array | undefined;
let index = 0;
let depth = 0;

/** This thread's native calls will be announced in `control[at]` (a worker whose owner may terminate it). */
export function guardNativeCalls(control: Int32Array, at: number): void {
  cell = control;
  index = at;
}

/** The error of a native call refused because this thread is being stopped (its work is abandoned anyway). */
export class NativeCallsClosedError extends Error {
  constructor() {
    super('this thread is being stopped');
    this.name = 'NativeCallsClosedError';
  }
}

/** Runs `fn`, a call into a native addon, as one announced section (nested sections count as the outer one). */
export function nativeCall<T>(fn: () => T): T {
  const c = cell;
  if (c === undefined) return fn();
  if (depth === 0 && Atomics.compareExchange(c, index, FREE, BUSY) === CLOSED) throw new NativeCallsClosedError();
  depth++;
  try {
    return fn();
  } finally {
    // The owner never writes a BUSY cell, so FREE is the value to restore.
    if (--depth === 0) Atomics.store(c, index, FREE);
  }
}

/**
 * The owner's side: claims the thread's cell so no native call can start. False while a call runs (try again
 * shortly: the call ends on its own, and terminating now could abort the process); true once the thread may be
 * terminated.
 */
export function closeNativeCalls(control: Int32Array, at: number): boolean {
  return Atomics.compareExchange(control, at, FREE, CLOSED) !== BUSY;
}
