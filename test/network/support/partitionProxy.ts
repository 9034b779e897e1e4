/**
 * The network in the middle of the partition tests: one TCP listener on 127.0.0.1 per ordered pair of nodes (i → j),
 * forwarding what node i sends to node j's RPC port. `partition(sides)` makes every listener between two sides stop
 * forwarding, as a cut link does: bytes in flight and new connections are held, nothing reaches the other end and
 * nothing comes back, so requests time out and head streams go silent. `heal()` forwards again: connections held
 * during the cut are reset (their peers retry, as after a real outage) and new ones pass.
 */
import { createServer, Socket, type Server } from 'node:net';

interface Link {
  from: number;
  to: number;
  server: Server;
  port: number;
  sockets: Set<Socket>;
}

/** Proxy links between `size` nodes; node j's real port is set with `target(j, port)` once it listens. */
export class PartitionProxy {
  private readonly links: Link[] = [];
  private readonly targets = new Map<number, number>();
  private cut: ((from: number, to: number) => boolean) | undefined;

  private constructor(readonly size: number) {}

  static async start(size: number): Promise<PartitionProxy> {
    const proxy = new PartitionProxy(size);
    for (let from = 0; from < size; from++)
      for (let to = 0; to < size; to++) if (from !== to) proxy.links.push(await proxy.listen(from, to));
    return proxy;
  }

  /** The URL node `from` uses to reach node `to`. */
  url(from: number, to: number): string {
    const link = this.links.find((l) => l.from === from && l.to === to);
    if (!link) throw new Error(`no link ${from} -> ${to}`);
    return `http://127.0.0.1:${link.port}`;
  }

  /** Node `j` listens on `port` now (after a start or a restart). */
  target(j: number, port: number): void {
    this.targets.set(j, port);
  }

  /** Cuts every link between nodes of different sides (each node in exactly one side). */
  partition(sides: readonly (readonly number[])[]): void {
    const side = new Map<number, number>();
    sides.forEach((s, i) => s.forEach((n) => side.set(n, i)));
    this.cut = (from, to) => side.get(from) !== side.get(to);
  }

  /** Forwards on every link again; connections held during the cut are reset. */
  heal(): void {
    const wasCut = this.cut;
    this.cut = undefined;
    if (!wasCut) return;
    for (const l of this.links) if (wasCut(l.from, l.to)) for (const s of l.sockets) s.destroy();
  }

  async close(): Promise<void> {
    for (const l of this.links) {
      for (const s of l.sockets) s.destroy();
      await new Promise<void>((resolve) => l.server.close(() => resolve()));
    }
  }

  private async listen(from: number, to: number): Promise<Link> {
    const sockets = new Set<Socket>();
    const track = (s: Socket): void => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    };
    const server = createServer((client) => {
      track(client);
      const port = this.targets.get(to);
      if (port === undefined) return void client.destroy();
      const upstream = new Socket();
      track(upstream);
      upstream.connect(port, '127.0.0.1');
      const blocked = (): boolean => this.cut?.(from, to) === true;
      // A cut link forwards nothing either way; what was sent during the cut is dropped, like a lost packet.
      client.on('data', (d) => void (!blocked() && upstream.write(d)));
      upstream.on('data', (d) => void (!blocked() && client.write(d)));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy: no port');
    return { from, to, server, port: address.port, sockets };
  }
}
