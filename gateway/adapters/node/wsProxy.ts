import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { Gateway } from '../../gateway.ts';
import type { GatewayConfig } from '../../config/types.ts';
import type { GatewayMetrics } from '../../metrics/types.ts';
import { resolveIdentity } from '../../middleware/identity/resolveIdentity.ts';
import { parseCidr, type Cidr } from '../../address/ip.ts';
import { toGatewayError } from '../../rpc/gatewayError.ts';
import { WsSession } from '../../ws/wsSession.ts';

/**
 * Proxies WebSocket connections (subscriptions) on the gateway's port: the caller is identified at upgrade (key
 * from headers or /v1/<key>), refused with the HTTP status of the error before the upgrade, then each client gets its
 * own upstream connection; every client message passes the WsSession gate.
 */
export function attachWsProxy(server: Server, gw: Gateway, config: GatewayConfig, metrics: GatewayMetrics): () => void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.limits.maxBodyBytes });
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
    const upstream = gw.pool.upstreams.find((u) => gw.pool.unfitReason(u) === undefined);
    if (!upstream) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\n\r\n');
      return;
    }
    const session = new WsSession(who, { config, limiter: gw.limiter, metrics });
    wss.handleUpgrade(req, socket, head, (client) => {
      const up = new WebSocket(upstream.config.wsUrl ?? upstream.config.url.replace(/^http/, 'ws'));
      const early: string[] = [];
      up.on('open', () => early.splice(0).forEach((m) => up.send(m)));
      up.on('message', (data) => {
        session.onUpstreamMessage();
        if (client.readyState === WebSocket.OPEN) client.send(data.toString());
      });
      const closeBoth = () => {
        client.close();
        up.close();
      };
      up.on('close', closeBoth);
      up.on('error', closeBoth);
      client.on('close', closeBoth);
      client.on('error', closeBoth);
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
