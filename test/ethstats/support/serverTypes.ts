/** Shared types of the test ethstats server (runs in its own worker thread) and its main-thread handle. */

export interface ServerOptions {
  secrets: string[];
  /** Primus heartbeat: the server sends `primus::ping::<ms>` this often... */
  pingIntervalMs: number;
  /** ...and terminates a connection whose pong is later than this (the client then sees 1006). */
  pongTimeoutMs: number;
  /** Delay before answering node-ping with node-pong (late-pong tests). */
  nodePongDelayMs: number;
}

/** Something the server saw or did, with its time (ms since the server started) and connection number. */
export interface ServerEvent {
  t: number;
  conn: number;
  kind:
    | 'connect'
    | 'hello'
    | 'ready'
    | 'rejected'
    | 'node-ping'
    | 'latency'
    | 'block'
    | 'pending'
    | 'stats'
    | 'history'
    | 'primus-pong'
    | 'heartbeat-timeout'
    | 'close'
    | 'unknown';
  payload?: unknown;
}

/** Main thread → server worker; each command is answered by a `reply` with the same id. */
export type ServerCommand =
  | { id: number; cmd: 'configure'; options: Partial<ServerOptions> }
  | { id: number; cmd: 'events' }
  | { id: number; cmd: 'drop' }
  | { id: number; cmd: 'request-history'; list: unknown }
  | { id: number; cmd: 'stop' };

/** Server worker → main thread. */
export type ServerReply = { type: 'listening'; port: number } | { type: 'reply'; id: number; events?: ServerEvent[] };
