/**
 * The CallContext of one request (or one batch): its deadline, and an AbortSignal that fires at that deadline. The
 * signal and its timer are made on first use only: most calls (eth_blockNumber, eth_chainId, cached blocks) answer
 * synchronously and never look at the signal, and an AbortController plus a timer per request was measurable on the
 * hot path (about 3% of the node's CPU under autocannon, BENCHMARKS.md "RPC vs anvil").
 */
import { type CallContext, type RpcConnection } from './registry.ts';

export class CallScope implements CallContext {
  private ctl: AbortController | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** Deadline as epoch milliseconds. */
    readonly deadline: number,
    readonly clientIp: string,
    readonly transport: 'http' | 'ws',
    readonly connection?: RpcConnection,
  ) {}

  /** Fires at the deadline; created (with a timer for the time left) the first time someone asks. */
  get signal(): AbortSignal {
    let ctl = this.ctl;
    if (ctl === undefined) {
      ctl = new AbortController();
      this.ctl = ctl;
      const left = this.deadline - Date.now();
      if (left <= 0) ctl.abort();
      else this.timer = setTimeout(() => ctl?.abort(), left);
    }
    return ctl.signal;
  }

  /** True once the deadline has passed (whether or not the signal was ever made). */
  get expired(): boolean {
    if (this.ctl?.signal.aborted) return true;
    if (Date.now() < this.deadline) return false;
    this.ctl?.abort();
    return true;
  }

  /** Stops the timer; the request is answered. */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
  }
}
