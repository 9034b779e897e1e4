import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { Gateway } from '../../gateway.ts';
import type { GatewayConfig } from '../../config/types.ts';
import type { GatewayMetrics } from '../../metrics/types.ts';
import { extractKey } from '../../middleware/identity/extractKey.ts';
import { resolveIdentity } from '../../middleware/identity/resolveIdentity.ts';
import { ipBucket, parseCidr, type Cidr } from '../../address/ip.ts';
import { GatewayError, toGatewayError } from '../../rpc/gatewayError.ts';
import { WsSession } from '../../ws/wsSession.ts';
import { SubscriptionHub, type HubClient, type UpstreamSocket, type UpstreamSocketEvents } from '../../ws/subscriptionHub.ts';
import { rpcError, rpcResult, type RpcCall } from '../../rpc/types.ts';
import type { Upstream } from '../../upstream/upstream.ts';

/** Bytes queued to one slow client before it is disconnected. */
const MAX_BUFFERED = 16 * 1024 * 1024;

/** An upstream WebSocket for the subscription hub. */
function openUpstreamSocket(u: Upstream, events: UpstreamSocketEvents): UpstreamSocket {
  const ws = new WebSocket(u.config.wsUrl ?? u.config.url.replace(/^http/, 'ws'), { perMessageDeflate: false });
  ws.on('open', () => events.open());
  ws.on('message', (data) => events.message(data.toString()));
  let closed = false;
  const gone = () => {
    if (closed) return;
    closed = true;
    events.closed();
  };
  ws.on('close', gone);
  ws.on('error', () => {
    gone();
    ws.terminate();
  });
  return { send: (text) => ws.send(text), close: () => ws.close() };
}

/**
 * Answers a client message's admitted calls: eth_subscribe / eth_unsubscribe through the subscription hub (shared
 * upstream subscriptions), every other call as the HTTP endpoint answers it (cache, coalescing, the pool's routing,
 * retries and filter stickiness), all at once.
 */
async function answerWsCalls(calls: RpcCall[], member: HubClient, hub: SubscriptionHub, gw: Gateway): Promise<void> {
  const plain: RpcCall[] = [];
  const subs: Promise<void>[] = [];
  for (const call of calls) {
    if (call.method === 'eth_subscribe') {
      subs.push(
        hub.subscribe(member, call.params).then((a) => {
          call.response = 'error' in a ? rpcError(call.id, a.error) : rpcResult(call.id, a.result);
        }),
      );
    } else if (call.method === 'eth_unsubscribe') {
      const id = Array.isArray(call.params) ? call.params[0] : undefined;
      call.response =
        typeof id === 'string' && hub.unsubscribe(member, id)
          ? rpcResult(call.id, true)
          : rpcError(call.id, { code: -32000, message: 'subscription not found' });
    } else plain.push(call);
  }
  await Promise.all([...subs, plain.length > 0 ? gw.answerCalls(plain) : undefined]);
}

/**
 * Proxies WebSocket connections (subscriptions) on the gateway's port: the caller is identified at upgrade (key
 * from headers or /v1/<key>), refused with the HTTP status of the error before the upgrade; every client message
 * passes the WsSession gate. Subscriptions are multiplexed over few shared upstream sockets (SubscriptionHub),
 * identical ones deduplicated; other calls take the HTTP endpoint's path to the pool.
 */
export function attachWsProxy(server: Server, gw: Gateway, config: GatewayConfig, metrics: GatewayMetrics): () => void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.limits.maxBodyBytes });
  // Open sockets per key id, with the key they presented: a change to a key's record (revoke, disable, rotate, expiry
  // set) re-verifies each of them at once, and a socket whose key no longer passes is closed (issue #17 item 3).
  const byKey = new Map<string, Map<WebSocket, string>>();
  const perIp = new Map<string, number>();
  const perKey = new Map<string, number>();
  const count = (m: Map<string, number>, k: string, d: number) => {
    const n = (m.get(k) ?? 0) + d;
    if (n <= 0) m.delete(k);
    else m.set(k, n);
  };
  const recheck = (id: string) => {
    const open = byKey.get(id);
    if (!open || !gw.verifier) return;
    for (const [client, presented] of open) {
      gw.verifier.verify(presented).catch((err: unknown) => {
        // A key store that cannot be reached says nothing about the key: only a refusal of the key closes.
        if (err instanceof GatewayError && err.kind === 'unauthorized') client.close(1008, err.message.slice(0, 100));
      });
    }
  };
  gw.verifier?.onChange(recheck);
  const hub = new SubscriptionHub({
    open: (index, events) => openUpstreamSocket(gw.pool.upstreams[index] as Upstream, events),
    fitUpstreams: () => gw.pool.upstreams.flatMap((u, i) => (gw.pool.unfitReason(u) === undefined ? [i] : [])),
    subscriptionsPerSocket: config.limits.wsSubscriptionsPerUpstreamSocket,
    maxPerClient: config.limits.maxSubscriptionsPerWs,
    subscribeTimeoutMs: config.limits.callTimeoutMs,
    log: gw.sink,
    report: (sockets, up, clients) => metrics.wsSubscriptions(sockets, up, clients),
  });
  const trusted = config.identity.trustedProxies.map(parseCidr).filter((x): x is Cidr => x !== undefined);
  const onUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const pathKey = /^\/v1\/([^/?]+)/.exec(req.url ?? '')?.[1];
    let who;
    try {
      who = await resolveIdentity(headers, pathKey, req.socket.remoteAddress, {
        tiers: config.tiers,
        verifier: gw.verifier,
        trustedProxies: trusted,
        requireKey: config.identity.requireKey,
      });
    } catch (err) {
      const e = toGatewayError(err);
      socket.end(
        `HTTP/1.1 ${e.httpStatus} Unauthorized\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n${JSON.stringify({ jsonrpc: '2.0', id: null, error: e.toRpc() })}`,
      );
      return;
    }
    // Open sockets are capped per client address and per key (issue #17 item 8), per instance.
    const ipName = who.ip ? ipBucket(who.ip) : 'unknown';
    const keyId = who.key?.id;
    const overIp = !keyId && (perIp.get(ipName) ?? 0) >= config.limits.maxWsPerIp;
    const overKey = keyId !== undefined && (perKey.get(keyId) ?? 0) >= config.limits.maxWsPerKey;
    if (overIp || overKey) {
      metrics.connectionRefused(overKey ? 'ws_per_key' : 'ws_per_ip');
      const max = overKey ? config.limits.maxWsPerKey : config.limits.maxWsPerIp;
      const error = {
        code: -32005,
        message: 'limit exceeded',
        data: { scope: overKey ? 'key' : 'ip', limit: max, what: 'open WebSocket connections' },
      };
      socket.end(
        `HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\n\r\n${JSON.stringify({ jsonrpc: '2.0', id: null, error })}`,
      );
      return;
    }
    if (!gw.pool.upstreams.some((u) => gw.pool.unfitReason(u) === undefined)) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\n\r\n');
      return;
    }
    const session = new WsSession(who, { config, limiter: gw.limiter, metrics, usage: gw.usage, sink: gw.sink });
    const presented = extractKey(headers, pathKey);
    wss.handleUpgrade(req, socket, head, (client) => {
      if (keyId) count(perKey, keyId, 1);
      else count(perIp, ipName, 1);
      client.once('close', () => (keyId ? count(perKey, keyId, -1) : count(perIp, ipName, -1)));
      let expiry: ReturnType<typeof setTimeout> | undefined;
      if (keyId && presented) {
        let open = byKey.get(keyId);
        if (!open) byKey.set(keyId, (open = new Map()));
        open.set(client, presented);
        // An expiring key closes its sockets when it expires, without waiting for a change to its record.
        const left = who.key?.expiresAt === undefined ? undefined : who.key.expiresAt - Date.now();
        if (left !== undefined && left < 2 ** 31) expiry = setTimeout(() => client.close(1008, 'API key expired'), Math.max(0, left));
        client.once('close', () => {
          clearTimeout(expiry);
          open?.delete(client);
          if (open?.size === 0) byKey.delete(keyId);
        });
      }
      const send = (text: string) => {
        if (client.readyState !== WebSocket.OPEN) return;
        // A subscriber that stopped reading is cut off rather than buffered without bound (the core does the same).
        if (client.bufferedAmount > MAX_BUFFERED) client.terminate();
        else client.send(text);
      };
      const member: HubClient = {
        deliver(text) {
          session.onNotification();
          send(text);
        },
        fail: (code, reason) => client.close(code, reason),
      };
      const answer = (calls: RpcCall[]) => answerWsCalls(calls, member, hub, gw);
      client.on('error', () => client.terminate());
      client.once('close', () => hub.drop(member));
      // Messages are gated in arrival order (each waits for the previous one's bucket decision), then answered
      // concurrently: a slow call does not hold up the next one.
      let gate = Promise.resolve();
      client.on('message', (data) => {
        const text = data.toString();
        const admitted = gate.then(() => session.admit(text));
        gate = admitted.then(() => undefined);
        void admitted.then((a) => session.finish(a, answer)).then(send);
      });
    });
  };
  const listener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void onUpgrade(req, socket, head);
  server.on('upgrade', listener);
  return () => {
    server.off('upgrade', listener);
    hub.close();
    for (const c of wss.clients) c.terminate();
    wss.close();
  };
}
