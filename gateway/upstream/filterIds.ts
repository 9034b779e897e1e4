import { GatewayError } from '../rpc/gatewayError.ts';

/** Methods that create a polling filter on the upstream that answers them. */
export const FILTER_CREATE: ReadonlySet<string> = new Set(['eth_newFilter', 'eth_newBlockFilter', 'eth_newPendingTransactionFilter']);
/** Methods that name a filter by id in params[0]: they only mean something on the upstream that created it. */
export const FILTER_USE: ReadonlySet<string> = new Set(['eth_getFilterChanges', 'eth_getFilterLogs', 'eth_uninstallFilter']);

const WRAPPED = /^0x([0-9a-f]{2})([0-9a-f]+)$/i;

/**
 * The filter id a client sees: the upstream's own id with that upstream's index in front (`0x` + 2 hex digits of the
 * index + the upstream's hex digits), so a later call with it goes back to the upstream that holds the filter
 * (issue #17 item 5: with two upstreams half the polls reached the other one and got `filter not found`). No
 * shared state is needed, so it works the same across instances and on Workers.
 */
export function wrapFilterId(upstreamIndex: number, id: unknown): unknown {
  if (typeof id !== 'string' || !/^0x[0-9a-f]+$/i.test(id) || upstreamIndex > 0xff) return id;
  return `0x${upstreamIndex.toString(16).padStart(2, '0')}${id.slice(2)}`;
}

/** The upstream index and the upstream's own id inside a client's filter id; -32000 `filter not found` when it has none. */
export function unwrapFilterId(id: unknown, upstreams: number): { index: number; id: string } {
  const m = typeof id === 'string' ? WRAPPED.exec(id) : null;
  const index = m ? parseInt(m[1] as string, 16) : -1;
  if (!m || index >= upstreams) throw filterNotFound();
  return { index, id: `0x${m[2] as string}` };
}

/** What a filter call gets when its filter is unknown or lives on an upstream that is gone (geth's answer). */
export const filterNotFound = (): GatewayError => new GatewayError('filterNotFound');
