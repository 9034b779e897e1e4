/**
 * The last few results of heavy BLAKE2F calls, keyed by their exact 213-byte input (issue #18). F is a pure
 * function of that input, and one call may ask for up to 2^32 - 1 rounds (~75 s of one core here, decision 0035),
 * so a repeat is served from here instead of being computed again. Who repeats one: eth_estimateGas runs the same
 * call at several gas limits (each run that has the gas computes the same F), eth_call after eth_estimateGas or
 * debug_traceCall re-runs it, and a state-test file runs one transaction once per fork. Only calls of at least
 * `MEMO_MIN_ROUNDS` are kept (cheaper ones cost less than the lookup matters), and at most `MEMO_ENTRIES`, the
 * oldest dropped first: ~300 bytes each.
 */

/** ~17 ms of F on this host: below it a recomputation is cheap. */
export const MEMO_MIN_ROUNDS = 1 << 20;
export const MEMO_ENTRIES = 8;

export class Blake2fMemo {
  /** Insertion order is age: a Map iterates oldest first. */
  readonly #results = new Map<string, Uint8Array>();
  #hits = 0;

  constructor(private readonly capacity = MEMO_ENTRIES) {}

  /** The result for `input` when it was stored, as a fresh copy (callers own the bytes they get). */
  get(input: Uint8Array): Uint8Array | undefined {
    const key = keyOf(input);
    const found = this.#results.get(key);
    if (found === undefined) return undefined;
    this.#hits++;
    this.#results.delete(key); // refresh its age
    this.#results.set(key, found);
    return found.slice();
  }

  put(input: Uint8Array, output: Uint8Array): void {
    const key = keyOf(input);
    this.#results.delete(key);
    this.#results.set(key, output.slice());
    while (this.#results.size > this.capacity) {
      const oldest = this.#results.keys().next().value as string;
      this.#results.delete(oldest);
    }
  }

  clear(): void {
    this.#results.clear();
  }

  get size(): number {
    return this.#results.size;
  }

  /** Lookups answered from the memo since it was made (tests and diagnostics). */
  get hits(): number {
    return this.#hits;
  }
}

/** The input's bytes as a string, one character a byte: exact, and cheap next to even 2^20 rounds. */
const keyOf = (input: Uint8Array): string => Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('latin1');
