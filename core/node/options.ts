/** What `XoneNode.start` takes: the options parsed from the CLI or a test, and the shared services it logs and counts with. */
import type { EarlyListener } from '../rpc/earlyListener.ts';
import type { Genesis } from '../chain/genesis/index.ts';
import type { Logger } from '../log/types.ts';
import type { XoneMetrics } from '../metrics/index.ts';
import type { RpcOptions } from '../rpc/index.ts';
import type { ReaderFaults } from '../store/index.ts';
import type { RpcPoolOptions } from '../rpcPool/index.ts';
import type { ChainThread } from '../chainService/chainThread.ts';

export interface NodeOptions {
  datadir: string;
  genesis: Genesis;
  /** Dev mode: evm_* / anvil_* methods, automine and snapshots. */
  dev: boolean;
  /** Seal blocks with `signerKey`. */
  mine: boolean;
  /**
   * How a producer starts sealing: every `clique.period` seconds (`interval`, the default), on each transaction burst
   * (`automine`) or only on `evm_mine` (`manual`, what `evm_setAutomine(false)` switches to). Dev RPC can change it.
   */
  miningMode?: 'interval' | 'automine' | 'manual';
  signerKey?: Uint8Array;
  /** `early`: the port already bound by `xone run` (core/rpc/earlyListener.ts), taken over by the RPC server. */
  http: { host: string; port: number; corsOrigins?: string[]; early?: EarlyListener };
  /** Group-commit batch; default 0 with --mine, 128 otherwise. */
  batch?: number;
  /** Log line format of the node's own threads (the watchdog's); `--log.format`. */
  logFormat?: 'json' | 'terminal';
  /** Start the watchdog thread (default true). */
  watchdog?: boolean;
  /** `--debug.logslowblock`: log blocks whose import took at least this many ms (0 = every block); off when unset. */
  logSlowBlockMs?: number;
  /** `--ethstats name:secret@host:port`: report to an ethstats server (started after the RPC server). */
  ethstats?: string;
  /** `--peer URL` (repeatable): follow these xOne nodes (their RPC base URLs) instead of producing. */
  peers?: string[];
  /** JSON-RPC limits beyond the defaults (gas cap, EVM timeout, batch limits, per-IP rate bucket). */
  rpc?: Partial<RpcOptions>;
  /** The RPC execution pool (`--rpc.workers`): threads, per-client shares, queue bounds. */
  rpcPool?: Partial<RpcPoolOptions>;
  /**
   * `--recovery-workers`: sender recovery threads of a follower's chain thread (0 = in the chain thread). Default
   * `defaultRecoveryWorkers()` (docs/decisions/0014). A producer gets its senders from the tx pool and starts none.
   */
  recoveryWorkers?: number;
  /**
   * Injected faults (test seams, plain data): `logRowDelayMs` makes every row of the RPC reader's log scans this many
   * milliseconds slower, as a slow disk would. Never set by the CLI.
   */
  faults?: ReaderFaults;
  /** The chain thread when the caller started it already (`startChainThread`, so it boots while the caller loads). */
  chain?: StartedChain;
}

export interface NodeDeps {
  logger: Logger;
  metrics?: XoneMetrics;
  /** The RPC server's clock in epoch milliseconds (filter expiry, /health head age); `Date.now` unless a test fakes it. */
  rpcClock?: () => number;
}

/** A chain thread whose `init()` is under way. */
export interface StartedChain {
  thread: ChainThread;
  /** Resolves once the worker has opened the store; rejects if it could not. */
  ready: Promise<void>;
}
