/**
 * JSON-RPC over WebSocket on the HTTP server's port: the `ws` server is attached to Node's 'upgrade' event, every
 * text or binary message goes through the same Dispatcher as HTTP, and each connection can hold subscriptions.
 * Messages over `maxBodyBytes` close the connection with 1009 (ws's maxPayload), as geth closes on its read limit: ws
 * sends the close frame itself and keeps reading (and dropping) the rest of the message, so the client gets 1009;
 * tearing the socket down on the error instead made clients see 1006. Closing a connection cancels the pool work of
 * its requests still in flight.
 */
import { type IncomingMessage, type Server } from 'node:http';
import { type Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import { type Dispatcher } from './dispatch.ts';
import { CLIENT_HEADER } from './clientKey.ts';
import { type RpcConnection } from './registry.ts';

/** Most bytes queued to one slow client before it is disconnected (a subscriber that stopped reading). */
const MAX_BUFFERED = 16 * 1024 * 1024;
/** Requests in flight per connection before the server stops reading from it (TCP backpressure, not an error). */
const PAUSE_AT = 64;
const RESUME_AT = 16;
/** After a protocol error (a message over the limit) ws closes the connection itself; this bounds its handshake. */
const CLOSE_GRACE_MS = 5_000;

export interface WsAttachment {
  readonly server: WebSocketServer;
  /** Open connections. */
  readonly connections: number;
  close(): void;
}

export function attachWebSocket(
  http: Server,
  dispatcher: Dispatcher,
  maxPayload: number,
  clientOf: (remote: string, header: string | string[] | undefined) => string | undefined = () => undefined,
): WsAttachment {
  const wss = new WebSocketServer({ noServer: true, maxPayload, perMessageDeflate: false });
  let nextId = 1;
  const open = new Set<WebSocket>();
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  };
  http.on('upgrade', onUpgrade);
  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    open.add(ws);
    const closers: (() => void)[] = [];
    const conn: RpcConnection = {
      id: nextId++,
      send(json) {
        if (ws.readyState !== ws.OPEN) return;
        if (ws.bufferedAmount > MAX_BUFFERED) {
          ws.terminate();
          return;
        }
        ws.send(json);
      },
      onClose(fn) {
        closers.push(fn);
      },
    };
    // Requests in flight learn that the client left through these (their pool work is then cancelled).
    const gone = new Set<() => void>();
    const remote = req.socket.remoteAddress ?? '';
    const client = clientOf(remote, req.headers[CLIENT_HEADER]);
    const meta = {
      clientIp: remote,
      ...(client !== undefined ? { client } : {}),
      transport: 'ws' as const,
      connection: conn,
      onGone: (fn: () => void) => {
        gone.add(fn);
        return () => gone.delete(fn);
      },
    };
    let inFlight = 0;
    ws.on('message', (raw: RawData) => {
      const text = Array.isArray(raw) ? Buffer.concat(raw).toString('utf8') : Buffer.from(raw as ArrayBuffer).toString('utf8');
      if (++inFlight === PAUSE_AT) ws.pause();
      void dispatcher.handle(text, meta).then((r) => {
        if (--inFlight === RESUME_AT && ws.isPaused) ws.resume();
        if (r.body !== null) conn.send(typeof r.body === 'string' ? r.body : r.body.toString('utf8'));
      });
    });
    ws.on('error', () => {
      // ws has already started the close (1009 for a message over the limit): let its close frame go out.
      setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
    });
    ws.on('close', () => {
      open.delete(ws);
      for (const fn of closers) fn();
      for (const fn of gone) fn();
      gone.clear();
    });
  });
  return {
    server: wss,
    get connections() {
      return open.size;
    },
    close() {
      http.off('upgrade', onUpgrade);
      for (const ws of open) ws.terminate();
      wss.close();
    },
  };
}
