import { EthstatsError } from './errors.ts';

/** A parsed `--ethstats name:secret@host:port` value. */
export interface EthstatsTarget {
  /** Node name shown on the dashboard (also the login id). */
  name: string;
  secret: string;
  /** WebSocket URLs to try in order: the given scheme, or wss:// then ws:// (as geth does). */
  urls: string[];
}

/**
 * Parses `name:secret@host:port` with geth's rule (`([^:@]*)(:([^@]*))?@(.+)`); the host part may carry a ws:// or
 * wss:// scheme. The endpoint path is `/api`, as on eth-netstats servers.
 */
export function parseEthstatsUrl(text: string): EthstatsTarget {
  const m = /^([^:@]*)(:([^@]*))?@(.+)$/.exec(text);
  if (!m || m[1] === '')
    throw new EthstatsError('BAD_URL', `invalid ethstats url ${JSON.stringify(text)}, should be nodename:secret@host:port`);
  const host = m[4];
  const path = `${host.replace(/\/+$/, '')}/api`;
  const urls = /^wss?:\/\//.test(host) ? [path] : [`wss://${path}`, `ws://${path}`];
  return { name: m[1], secret: m[3] ?? '', urls };
}
