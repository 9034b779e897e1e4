/**
 * The CallContext of one request (or one batch): its deadline, and an AbortSignal that fires at that deadline or when
 * the client goes away (its connection closed), so queued and running pool work for it stops. The signal, its timer
 * and the "gone" listener are made on first use only: most calls (eth_blockNumber, eth_chainId, cached blocks) answer
 * synchronously and never look at the signal, and an AbortController plus a timer per request was measurable on the
 * hot path (about 3% of the node's CPU under autocannon, BENCHMARKS.md "RPC vs anvil").
 */
import { type CallContext, type RpcConnection } from './registry.ts';

/** Registers `fn` to run once the client has gone; returns the function that unregisters it. */
export type OnClientGone = (fn: () => void) => () => void;

export class CallScope implements CallContext {
  private ctl: AbortController | undefined;
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => void) | undefined;

  constructor(
    /** Deadline as epoch milliseconds. */
    readonly deadline: number,
    readonly clientIp: string,
    readonly transport: 'http' | 'ws',
    readonly connection?: RpcConnection,
    readonly client: string = clientIp,
    private readonly onGone?: OnClientGone,
  ) {}

  /** Fires at the deadline or when the client goes; created (with a timer for the time left) the first time asked. */
  get signal(): AbortSignal {
    let ctl = this.ctl;
    if (ctl === undefined) {
      ctl = new AbortController();
      this.ctl = ctl;
      const left = this.deadline - Date.now();
      if (left <= 0) ctl.abort();
      else this.timer = setTimeout(() => ctl?.abort(), left);
      this.unlisten = this.onGone?.(() => ctl?.abort());
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

  /** Stops the timer and the "gone" listener; the request is answered. */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.unlisten?.();
  }
}
