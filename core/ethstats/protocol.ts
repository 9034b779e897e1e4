/**
 * The ethstats wire protocol as geth implements it (ethstats/ethstats.go) against eth-netstats servers (Primus over
 * WebSocket): every message is JSON `{"emit": [name, payload]}`, except Primus heartbeats, which are JSON strings
 * `"primus::ping::<ms>"` answered with `"primus::pong::<ms>"`.
 */
import type { EthstatsBlock, EthstatsNodeInfo, EthstatsNodeStats } from './types.ts';

/** One outgoing message, already serialized. `kind` lets the send queue coalesce by kind. */
export interface Outgoing {
  kind: 'hello' | 'node-ping' | 'latency' | 'block' | 'pending' | 'stats' | 'history' | 'pong';
  text: string;
}

const emit = (kind: Outgoing['kind'], name: string, payload: unknown): Outgoing => ({
  kind,
  text: JSON.stringify({ emit: [name, payload] }),
});

/** Login: `hello` with id, info and secret. */
export function helloMessage(name: string, secret: string, info: EthstatsNodeInfo): Outgoing {
  return emit('hello', 'hello', { id: name, info: { name, ...info }, secret });
}

/** Latency probe; the server answers `node-pong` echoing `clientTime`. */
export function nodePingMessage(name: string, clientTime: string): Outgoing {
  return emit('node-ping', 'node-ping', { id: name, clientTime });
}

/** Measured latency (half the round trip, whole milliseconds as a string, as geth sends it). */
export function latencyMessage(name: string, latencyMs: number): Outgoing {
  return emit('latency', 'latency', { id: name, latency: String(Math.round(latencyMs)) });
}

/** New head (or the head in a full report). */
export function blockMessage(name: string, block: EthstatsBlock): Outgoing {
  return emit('block', 'block', { id: name, block });
}

/** Pending transaction count; geth sends it after every block too. */
export function pendingMessage(name: string, pending: number): Outgoing {
  return emit('pending', 'pending', { id: name, stats: { pending } });
}

/** Node stats: active, syncing, mining, peers, gas price, uptime. */
export function statsMessage(name: string, stats: EthstatsNodeStats): Outgoing {
  return emit('stats', 'stats', { id: name, stats });
}

/** History reply: blocks newest first, as geth orders them. */
export function historyMessage(name: string, blocks: EthstatsBlock[]): Outgoing {
  const history = [...blocks].sort((a, b) => b.number - a.number);
  return emit('history', 'history', { id: name, history });
}

/** A message from the server, classified. */
export type Incoming =
  | { type: 'primus-ping'; pong: Outgoing }
  | { type: 'ready' }
  | { type: 'node-pong'; clientTime: string | null }
  | { type: 'history'; numbers: number[] | null }
  | { type: 'other'; name: string }
  | { type: 'invalid'; reason: string };

/** Classifies one text frame from the server. Never throws: a bad frame is `invalid` with the reason. */
export function parseIncoming(text: string): Incoming {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { type: 'invalid', reason: 'not JSON' };
  }
  if (typeof value === 'string') {
    if (value.startsWith('primus::ping::'))
      return { type: 'primus-ping', pong: { kind: 'pong', text: JSON.stringify(value.replace('primus::ping::', 'primus::pong::')) } };
    return { type: 'other', name: value };
  }
  const emitted = (value as { emit?: unknown } | null)?.emit;
  if (!Array.isArray(emitted) || typeof emitted[0] !== 'string') return { type: 'invalid', reason: 'no emit array' };
  const [name, payload] = emitted as [string, unknown];
  if (name === 'ready') return { type: 'ready' };
  if (name === 'node-pong') {
    const clientTime = (payload as { clientTime?: unknown } | null)?.clientTime;
    return { type: 'node-pong', clientTime: typeof clientTime === 'string' ? clientTime : null };
  }
  if (name === 'history') {
    const list = (payload as { list?: unknown } | null)?.list;
    // geth ignores a malformed request and answers with its latest blocks.
    if (!Array.isArray(list) || !list.every((n) => Number.isSafeInteger(n) && n >= 0)) return { type: 'history', numbers: null };
    return { type: 'history', numbers: list as number[] };
  }
  return { type: 'other', name };
}
