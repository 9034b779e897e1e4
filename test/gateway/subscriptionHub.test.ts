import { expect, test } from 'vitest';
import { SubscriptionHub, type HubClient, type UpstreamSocketEvents } from '../../gateway/ws/subscriptionHub.ts';
import { until } from './support/gateway.ts';

// The give-up path of re-subscription, with the upstream's loss injected: the first upstream socket answers
// eth_subscribe and is then lost; every later one fails at once (the upstream stays down). The end-to-end recovery
// (fault proxy, a restarted core) is in wsMultiplex.test.ts.
test('error: a subscription that cannot be made again within resubscribeForMs closes its clients with 1012 and logs the attempts', async () => {
  const sockets: UpstreamSocketEvents[] = [];
  const lines: Record<string, unknown>[] = [];
  const hub = new SubscriptionHub({
    open: (_index, events) => {
      const n = sockets.push(events);
      if (n === 1) queueMicrotask(() => events.open());
      else queueMicrotask(() => events.closed());
      return {
        send(text: string) {
          const msg = JSON.parse(text) as { id: number; method: string };
          if (msg.method === 'eth_subscribe')
            queueMicrotask(() => events.message(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: '0xup1' })));
        },
        close: () => undefined,
      };
    },
    fitUpstreams: () => [0],
    subscriptionsPerSocket: 10,
    maxPerClient: 3,
    resubscribeForMs: 300,
    resubscribeDelayMs: 50,
    log: (l) => lines.push(l),
  });
  const failed: [number, string][] = [];
  const client: HubClient = { deliver: () => undefined, fail: (code, reason) => failed.push([code, reason]) };
  const answer = await hub.subscribe(client, ['newHeads']);
  expect(answer).toMatchObject({ result: expect.stringMatching(/^0x[0-9a-f]{32}$/) });
  sockets[0]?.closed();
  await until(() => failed.length > 0, 5_000);
  expect(failed).toEqual([[1012, 'upstream subscription connection lost; subscribe again']]);
  const line = lines.find((l) => l.event === 'ws_resubscribe_failed');
  expect(line).toMatchObject({ params: ['newHeads'], clients: 1 });
  expect(Number(line?.attempts)).toBeGreaterThan(1);
  expect(Number(line?.gap_ms)).toBeGreaterThanOrEqual(300);
  // Nothing is retried after giving up, and a new subscription starts afresh.
  const opened = sockets.length;
  await new Promise((r) => setTimeout(r, 200));
  expect(sockets.length).toBe(opened);
  hub.close();
});
