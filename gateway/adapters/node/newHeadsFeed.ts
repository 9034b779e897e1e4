import { WebSocket } from 'ws';
import { toBlockId } from '../../cache/headPoller.ts';
import type { HeadTracker } from '../../cache/headTracker.ts';

/**
 * Feeds the head tracker from an upstream's `newHeads` subscription, so a new block (or a reorg) reaches the
 * height → hash map as soon as the node announces it; the poller keeps running for safe/finalized and as the
 * fallback when the socket drops. Reconnects with a 1 s pause. Returns a stop function.
 */
export function startNewHeadsFeed(wsUrl: string, tracker: HeadTracker, finalityDepth: number, onHead?: (n: number) => void): () => void {
  let stopped = false;
  let ws: WebSocket | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const connect = () => {
    if (stopped) return;
    const sock = new WebSocket(wsUrl);
    ws = sock;
    sock.on('open', () => sock.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })));
    sock.on('message', (data) => {
      let msg: { method?: string; params?: { result?: unknown } };
      try {
        msg = JSON.parse(data.toString()) as typeof msg;
      } catch {
        return;
      }
      if (msg.method !== 'eth_subscription') return;
      const block = toBlockId(msg.params?.result);
      if (!block) return;
      // This upstream holds this block now: calls pinned to it may go there (the pool routes by each upstream's head).
      onHead?.(block.number);
      // safe/finalized do not come with newHeads: keep the last polled values (never ahead of this block).
      const s = tracker.state;
      const fallback = Math.max(0, block.number - finalityDepth);
      void tracker.update(block, Math.min(s?.safe ?? fallback, block.number), Math.min(s?.finalized ?? fallback, block.number));
    });
    const again = () => {
      if (!stopped && ws === sock) retry = setTimeout(connect, 1_000);
    };
    sock.on('close', again);
    sock.on('error', () => sock.close());
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    ws?.terminate();
  };
}
