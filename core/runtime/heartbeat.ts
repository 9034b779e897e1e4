/**
 * Shared memory between the main loop and the watchdog thread: the loop-lag probe writes a heartbeat (a timestamp)
 * each time it wakes, and the watchdog writes the load-shedding flag. Both sides use Atomics, so a reader in another
 * thread sees whole values, and the flag can be read by the main thread without a message (a blocked loop cannot
 * receive messages).
 */

/** Slots of the BigInt64Array view. */
const BEAT_US = 0; // last heartbeat, microseconds on the shared clock (0 = no beat yet)
const SHEDDING = 1; // 1 while the watchdog asks for load shedding
const STALLS = 2; // stall episodes the watchdog has seen (for tests and metrics)
const SLOTS = 3;

/**
 * Microseconds on a clock all threads share: `performance.timeOrigin` is the wall-clock start of the thread, so
 * `timeOrigin + now()` is comparable across threads while staying monotonic within each.
 */
export function sharedClockUs(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));
}

/** A view over the shared heartbeat memory; create it once on the main thread and hand `buffer` to the watchdog. */
export class SharedHeartbeat {
  readonly buffer: SharedArrayBuffer;
  private readonly view: BigInt64Array;

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(SLOTS * 8)) {
    if (buffer.byteLength < SLOTS * 8) throw new RangeError(`heartbeat buffer must hold ${SLOTS * 8} bytes, got ${buffer.byteLength}`);
    this.buffer = buffer;
    this.view = new BigInt64Array(buffer, 0, SLOTS);
  }

  /** Records that the main loop is alive now. */
  beat(nowUs: bigint = sharedClockUs()): void {
    Atomics.store(this.view, BEAT_US, nowUs);
  }

  /** Marks the probe as stopped (0n = no beat): the watchdog then stands down instead of seeing an endless stall. */
  stop(): void {
    Atomics.store(this.view, BEAT_US, 0n);
  }

  /** The last heartbeat in shared-clock microseconds, or 0n before the first beat or after `stop()`. */
  lastBeatUs(): bigint {
    return Atomics.load(this.view, BEAT_US);
  }

  /** True while the watchdog asks the node to refuse new expensive work (RPC answers -32005). */
  isShedding(): boolean {
    return Atomics.load(this.view, SHEDDING) === 1n;
  }

  /** Set by the watchdog when the loop is late, cleared when it recovers. */
  setShedding(on: boolean): void {
    Atomics.store(this.view, SHEDDING, on ? 1n : 0n);
  }

  /** Number of stall episodes the watchdog has reported. */
  stalls(): number {
    return Number(Atomics.load(this.view, STALLS));
  }

  /** Counts one more stall episode. */
  countStall(): void {
    Atomics.add(this.view, STALLS, 1n);
  }
}
