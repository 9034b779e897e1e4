/** Tunables of the ethstats reporter; geth's values where geth has one. */
export interface EthstatsOptions {
  /** Full report (latency, block, pending, stats) interval: geth's 15 s. */
  reportIntervalMs: number;
  /** A node-pong later than this ends the latency round (the pong, if it comes, is ignored). geth: 5 s. */
  pingTimeoutMs: number;
  /** WebSocket handshake and login (`ready`) deadline. geth: 5 s handshake. */
  handshakeTimeoutMs: number;
  /** Reconnect backoff bounds (exponential, full jitter). */
  backoffMinMs: number;
  backoffMaxMs: number;
  /** Bound of the outgoing queue (frames). */
  queueLimit: number;
  /** Blocks sent when the server asks for history without a list. geth: 50. */
  historyRange: number;
  /** How long to wait for the main thread to answer a history request before sending what is known. */
  historyTimeoutMs: number;
  /** New heads are sent at most this often (coalesced to the latest). */
  headMinIntervalMs: number;
}

/** geth's timings (15 s report, 5 s ping and handshake) plus bounds for the backoff, the queue and history. */
export const defaultEthstatsOptions: EthstatsOptions = {
  reportIntervalMs: 15_000,
  pingTimeoutMs: 5_000,
  handshakeTimeoutMs: 5_000,
  backoffMinMs: 1_000,
  backoffMaxMs: 30_000,
  queueLimit: 64,
  historyRange: 50,
  historyTimeoutMs: 2_000,
  headMinIntervalMs: 500,
};
