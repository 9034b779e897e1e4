/**
 * Idle `EvmHost`s of one thread, per (chain, fork), lent out one call at a time. Building an EVM (opcode and
 * precompile tables, the fast interpreter's replacements) cost ~0.5 ms of every eth_call when each call built its own;
 * a host taken from here is bound to the call's own `JournaledState` and block, so nothing a call wrote is seen by
 * the next one. A host comes back only from a call that ended normally: one stopped by an exception (interrupt,
 * timeout, an invalid message) may be mid-frame, and is dropped.
 */
import type { Fork } from '../chain/forks.ts';
import { JournaledState } from '../state/journaledState.ts';
import { isFastInterpreter, setStepWatch } from './evm/fastInterpreter.ts';
import { EvmHost } from './evmHost.ts';

/** Idle hosts kept per (chain, fork): calls on one thread rarely overlap (the pool runs one job per worker). */
const IDLE_PER_KEY = 4;

/** What an idle host points at: nothing a call could read (its state and block are set when it is taken). */
const NO_STATE = new JournaledState({
  getAccount: () => undefined,
  getStorage: () => new Uint8Array(0),
  getCode: () => undefined,
});

export class EvmHostPool {
  private readonly idle = new Map<string, EvmHost[]>();
  private readonly keys = new WeakMap<EvmHost, string>();

  /**
   * A host for one call on `state`: an idle one of this chain and fork, or a new one. With `precompileMoves` (a
   * call's overridden precompiles) always a new one, never kept: its precompile table is that call's alone.
   */
  take(chainId: bigint, fork: Fork, state: JournaledState, precompileMoves?: ReadonlyMap<string, string>): EvmHost {
    if (precompileMoves !== undefined && precompileMoves.size > 0) return new EvmHost(chainId, fork, state, { precompileMoves });
    const key = `${chainId}:${fork}`;
    const host = this.idle.get(key)?.pop();
    if (host === undefined) {
      const built = new EvmHost(chainId, fork, state);
      this.keys.set(built, key);
      return built;
    }
    host.stateManager.state = state;
    return host;
  }

  /**
   * Gives back a host whose call ended normally. A host with event listeners is not kept (on the library's loop,
   * DEBUG=ethjs, the clock check is a `step` listener that would pile up, one per call), nor one from elsewhere.
   */
  give(host: EvmHost): void {
    const key = this.keys.get(host);
    if (key === undefined || !isFastInterpreter(host.evm) || host.evm.DEBUG || host.evm.events.eventNames().length > 0) return;
    host.stateManager.state = NO_STATE;
    // Nor the call's clock check: left on the EVM, an eth_call's deadline stopped whatever job took the host after it
    // (eth_simulateV1 and debug_trace* answered -32603 once that deadline had passed).
    setStepWatch(host.evm, undefined);
    const list = this.idle.get(key) ?? [];
    if (list.length >= IDLE_PER_KEY) return;
    list.push(host);
    this.idle.set(key, list);
  }
}
