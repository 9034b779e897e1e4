import { cidrContains, parseIp, type Cidr, type IpAddr } from './ip.ts';

/**
 * Resolves the client address. The socket peer counts only if it is not a trusted proxy; if it is, X-Forwarded-For is
 * walked right to left and the first entry that is not a trusted proxy is the client. The left-most entries are
 * whatever the client wrote, so trusting them (proxyd's flaw) lets anyone pick their own bucket.
 */
export function resolveClientIp(remote: string | undefined, forwardedFor: string | null, trusted: readonly Cidr[]): IpAddr | undefined {
  const peer = remote ? parseIp(remote) : undefined;
  const isTrusted = (ip: IpAddr) => trusted.some((c) => cidrContains(c, ip));
  if (!peer || !isTrusted(peer) || !forwardedFor) return peer;
  const hops = forwardedFor.split(',');
  let last: IpAddr = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseIp(hops[i] ?? '');
    // A malformed hop was written by someone untrusted: stop at the last good (trusted) hop's view of it.
    if (!hop) return last;
    if (!isTrusted(hop)) return hop;
    last = hop;
  }
  return last;
}
