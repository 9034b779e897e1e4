import type { Server, Socket } from 'node:net';
import { cidrContains, ipBucket, parseIp, type Cidr } from '../../address/ip.ts';
import type { GatewayMetrics } from '../../metrics/types.ts';

/**
 * Closes connections that send nothing within `firstByteTimeoutMs`, and caps open TCP connections per client address (IPv6 per /64, like the rate buckets) on the public server: the
 * connection past `max` is closed at once (issue #17 item 12: 1,000 idle connections from one address were held for
 * a minute). Trusted proxies are exempt: every client behind them shares their address. Returns a stop function.
 */
export function capConnectionsPerIp(
  server: Server,
  max: number,
  firstByteTimeoutMs: number,
  trusted: readonly Cidr[],
  metrics: GatewayMetrics,
): () => void {
  const open = new Map<string, number>();
  const onConnection = (socket: Socket) => {
    // Node's headersTimeout starts with the first byte of a request: a connection that never sends one (half-open,
    // or opened to hold a slot) would otherwise stay until the kernel gives up on it.
    const silent = setTimeout(() => socket.destroy(), firstByteTimeoutMs);
    socket.once('data', () => clearTimeout(silent));
    socket.once('close', () => clearTimeout(silent));
    const ip = socket.remoteAddress ? parseIp(socket.remoteAddress) : undefined;
    if (!ip || trusted.some((c) => cidrContains(c, ip))) return;
    const bucket = ipBucket(ip);
    const n = (open.get(bucket) ?? 0) + 1;
    if (n > max) {
      metrics.connectionRefused('per_ip');
      socket.destroy();
      return;
    }
    open.set(bucket, n);
    socket.once('close', () => {
      const left = (open.get(bucket) ?? 1) - 1;
      if (left <= 0) open.delete(bucket);
      else open.set(bucket, left);
    });
  };
  server.on('connection', onConnection);
  return () => server.off('connection', onConnection);
}
