/**
 * Who a request counts as for the execution pool's per-client share: its socket's IP, or, when the socket belongs to
 * a gateway the operator trusts (`--rpc.trusted-gateways`), the client that gateway names in `X-Xone-Client` (its API
 * key id or its client's IP). A header from anyone else is ignored, so a client cannot pick its own key.
 */

/** The header a trusted gateway sets on the requests it forwards. */
export const CLIENT_HEADER = 'x-xone-client';

const VALID = /^[\x21-\x7e]{1,128}$/;

/** `::ffff:127.0.0.1` and `127.0.0.1` are the same peer. */
export const normalizeIp = (ip: string): string => (ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip);

/** The fairness key of a request from `remote` carrying `header`, or undefined to use the IP. */
export function clientKeyResolver(
  trustedGateways: readonly string[],
): (remote: string, header: string | string[] | undefined) => string | undefined {
  if (trustedGateways.length === 0) return () => undefined;
  const trusted = new Set(trustedGateways.map(normalizeIp));
  return (remote, header) => {
    if (typeof header !== 'string' || !trusted.has(normalizeIp(remote)) || !VALID.test(header)) return undefined;
    return `gw:${header}`;
  };
}
