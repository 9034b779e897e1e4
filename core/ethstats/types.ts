/**
 * Data the ethstats reporter sends (the shapes geth's ethstats service sends to eth-netstats servers) and the
 * messages between the main thread and the reporter's worker. All of it is structured-clone safe.
 */

/** Static login information (`hello` message `info`). */
export interface EthstatsNodeInfo {
  /** Client identity, e.g. `xone-ts/v0.1.0/linux-x64/node20.20.0`. */
  node: string;
  /** P2P/sync listening port. */
  port: number;
  /** Network id as a decimal string. */
  net: string;
  protocol: string;
  api: string;
  os: string;
  os_v: string;
  client: string;
  canUpdateHistory: boolean;
}

/** One block as reported in `block` and `history` messages. */
export interface EthstatsBlock {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  miner: string;
  gasUsed: number;
  gasLimit: number;
  difficulty: string;
  totalDifficulty: string;
  transactions: { hash: string }[];
  transactionsRoot: string;
  stateRoot: string;
  uncles: unknown[];
}

/** The `stats` message body. */
export interface EthstatsNodeStats {
  active: boolean;
  syncing: boolean;
  mining: boolean;
  hashrate: number;
  peers: number;
  gasPrice: number;
  uptime: number;
}

/** Main thread → reporter worker. */
export type ToReporter =
  | { type: 'head'; block: EthstatsBlock }
  | { type: 'pending'; count: number }
  | { type: 'stats'; stats: EthstatsNodeStats }
  | { type: 'history-response'; requestId: number; blocks: EthstatsBlock[] }
  | { type: 'close' };

/** Connection state the reporter publishes. */
export type ReporterState = 'connecting' | 'logging-in' | 'connected' | 'backoff' | 'closed';

/** Reporter worker → main thread. */
export type FromReporter =
  | { type: 'ready' }
  | { type: 'history-request'; requestId: number; numbers: number[] }
  | { type: 'state'; state: ReporterState; url?: string; detail?: string }
  | { type: 'log'; level: 'debug' | 'info' | 'warn'; msg: string; meta?: Record<string, unknown> }
  | { type: 'closed' };
