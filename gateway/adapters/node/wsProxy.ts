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

/**
 * Proxies WebSocket connections (subscriptions) on the gateway's port: the caller is identified at upgrade (key
 * from headers or /v1/<key>), refused with the HTTP status of the error before the upgrade, then each client gets its
 * own upstream connection; every client message passes the WsSession gate.
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
    const upstream = gw.pool.upstreams.find((u) => gw.pool.unfitReason(u) === undefined);
    if (!upstream) {
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
      const up = new WebSocket(upstream.config.wsUrl ?? upstream.config.url.replace(/^http/, 'ws'));
      const early: string[] = [];
      up.on('open', () => early.splice(0).forEach((m) => up.send(m)));
      up.on('message', (data) => {
        const text = data.toString();
        session.onUpstreamMessage(text);
        if (client.readyState === WebSocket.OPEN) client.send(text);
      });
      const closeBoth = () => {
        client.close();
        up.close();
      };
      up.on('close', closeBoth);
      up.on('error', closeBoth);
      client.on('close', closeBoth);
      client.on('error', closeBoth);
      client.once('close', () => session.close());
      // Messages are gated in arrival order: each waits for the previous verdict so ids cannot overtake.
      let queue = Promise.resolve();
      client.on('message', (data) => {
        queue = queue.then(async () => {
          const verdict = await session.onClientMessage(data.toString());
          for (const r of verdict.replies) client.send(r);
          if (verdict.forward !== undefined) {
            if (up.readyState === WebSocket.OPEN) up.send(verdict.forward);
            else early.push(verdict.forward);
          }
        });
      });
    });
  };
  const listener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void onUpgrade(req, socket, head);
  server.on('upgrade', listener);
  return () => {
    server.off('upgrade', listener);
    for (const c of wss.clients) c.terminate();
    wss.close();
  };
}
