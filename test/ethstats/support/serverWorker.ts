/**
 * A faithful eth-netstats server side for tests, in its own worker thread (so a test can block its main thread the way
 * a heavy block import blocks a node's). Implements what geth's client meets on a real server: `hello` with a secret
 * check (`ready`, or a close without ready), Primus heartbeats (`"primus::ping::<ms>"`, connection terminated when the
 * pong is late), `node-ping` answered with `node-pong` {clientTime, serverTime}, history requests, and records every
 * report and close code.
 */
import { parentPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { WebSocketServer, type WebSocket } from 'ws';
import { tsWorkerData } from '../../../core/runtime/spawnTsWorker.ts';
import type { ServerCommand, ServerEvent, ServerOptions, ServerReply } from './serverTypes.ts';

const port = parentPort;
if (!port) throw new Error('serverWorker must run in a worker thread');
const opts: ServerOptions = { ...tsWorkerData<ServerOptions>() };
const events: ServerEvent[] = [];
const started = performance.now();
const record = (conn: number, kind: ServerEvent['kind'], payload?: unknown) =>
  events.push({ t: Math.round(performance.now() - started), conn, kind, payload });
const sockets = new Set<WebSocket>();
let nextConn = 1;

const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/api' });
wss.on('connection', (ws) => {
  const conn = nextConn++;
  sockets.add(ws);
  record(conn, 'connect');
  let authorized = false;
  const awaiting = new Map<string, NodeJS.Timeout>();
  const heartbeat = setInterval(() => {
    if (!authorized) return;
    const token = `primus::ping::${Date.now()}:${conn}:${awaiting.size}`;
    awaiting.set(
      token,
      setTimeout(() => {
        record(conn, 'heartbeat-timeout', token);
        ws.terminate();
      }, opts.pongTimeoutMs),
    );
    ws.send(JSON.stringify(token));
  }, opts.pingIntervalMs);
  const pingSent = new Map<string, number>();
  ws.on('message', (data) => {
    const text = data.toString();
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return record(conn, 'unknown', text);
    }
    if (typeof msg === 'string' && msg.startsWith('primus::pong::')) {
      const token = msg.replace('primus::pong::', 'primus::ping::');
      const timer = awaiting.get(token);
      if (timer) {
        clearTimeout(timer);
        awaiting.delete(token);
      }
      return record(conn, 'primus-pong', token);
    }
    const emitted = (msg as { emit?: unknown[] }).emit;
    if (!Array.isArray(emitted)) return record(conn, 'unknown', msg);
    const [name, payload] = emitted as [string, Record<string, unknown>];
    if (!authorized && name !== 'hello') return record(conn, 'unknown', msg);
    switch (name) {
      case 'hello':
        record(conn, 'hello', payload);
        if (!opts.secrets.includes(String(payload?.secret))) {
          record(conn, 'rejected');
          // eth-netstats ends the spark without `ready`.
          ws.close(1008, 'unauthorized');
          return;
        }
        authorized = true;
        ws.send(JSON.stringify({ emit: ['ready'] }));
        return record(conn, 'ready');
      case 'node-ping': {
        record(conn, 'node-ping', payload);
        pingSent.set(String(payload?.clientTime), performance.now());
        setTimeout(() => {
          if (ws.readyState === ws.OPEN)
            ws.send(JSON.stringify({ emit: ['node-pong', { clientTime: payload?.clientTime, serverTime: Date.now() }] }));
        }, opts.nodePongDelayMs);
        return;
      }
      case 'latency':
      case 'block':
      case 'pending':
      case 'stats':
      case 'history':
        return record(conn, name, payload);
      default:
        return record(conn, 'unknown', msg);
    }
  });
  ws.on('close', (code, reason) => {
    clearInterval(heartbeat);
    for (const t of awaiting.values()) clearTimeout(t);
    sockets.delete(ws);
    record(conn, 'close', { code, reason: reason.toString() });
  });
});

wss.on('listening', () => {
  const address = wss.address();
  port.postMessage({ type: 'listening', port: typeof address === 'object' && address !== null ? address.port : 0 } satisfies ServerReply);
});

port.on('message', (msg: ServerCommand) => {
  switch (msg.cmd) {
    case 'configure':
      // A fresh start for the next test: new options, no connections, no events.
      Object.assign(opts, msg.options);
      for (const ws of sockets) ws.terminate();
      events.length = 0;
      return port.postMessage({ type: 'reply', id: msg.id } satisfies ServerReply);
    case 'events':
      return port.postMessage({ type: 'reply', id: msg.id, events: [...events] } satisfies ServerReply);
    case 'drop':
      for (const ws of sockets) ws.terminate();
      return port.postMessage({ type: 'reply', id: msg.id } satisfies ServerReply);
    case 'request-history':
      for (const ws of sockets) ws.send(JSON.stringify({ emit: ['history', { list: msg.list }] }));
      return port.postMessage({ type: 'reply', id: msg.id } satisfies ServerReply);
    case 'stop':
      for (const ws of sockets) ws.terminate();
      wss.close(() => {
        port.postMessage({ type: 'reply', id: msg.id } satisfies ServerReply);
        port.close();
      });
      return;
  }
});
