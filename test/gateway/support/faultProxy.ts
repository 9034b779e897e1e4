import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server, for injected faults only: `down` refuses and cuts every
 * connection (an outage), `delayMs` holds every chunk from the server that long before passing it on (a slow or
 * lagging node). Everything else is the real server's bytes.
 */
export interface FaultProxy {
  url: string;
  wsUrl: string;
  port: number;
  /** Delay added to each server → client chunk. */
  delayMs: number;
  /** Cuts every open connection and refuses new ones until set false again. */
  setDown(down: boolean): void;
  stop(): Promise<void>;
}

export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const open = new Set<Socket>();
  let down = false;
  const proxy: FaultProxy = {
    url: '',
    wsUrl: '',
    port: 0,
    delayMs: 0,
    setDown(d: boolean) {
      down = d;
      if (d) for (const s of open) s.destroy();
    },
    stop: async () => undefined,
  };
  const server: Server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    open.add(client);
    open.add(upstream);
    const cleanup = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => {
      if (proxy.delayMs > 0) setTimeout(() => client.writable && client.write(d), proxy.delayMs);
      else client.write(d);
    });
    client.on('close', cleanup);
    upstream.on('close', () => (proxy.delayMs > 0 ? setTimeout(cleanup, proxy.delayMs) : cleanup()));
    client.on('error', cleanup);
    upstream.on('error', cleanup);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  proxy.port = (server.address() as AddressInfo).port;
  proxy.url = `http://127.0.0.1:${proxy.port}`;
  proxy.wsUrl = `ws://127.0.0.1:${proxy.port}`;
  proxy.stop = () =>
    new Promise<void>((r) => {
      for (const s of open) s.destroy();
      server.close(() => r());
    });
  return proxy;
}
