/** Matching of logs against filter criteria (address set, positional topic OR-lists), as geth's filterLogs. */
import { type LogData } from './encode/types.ts';
import { equalBytes } from '../primitives/hex.ts';

export interface LogCriteria {
  addresses: Uint8Array[];
  topics: (Uint8Array[] | null)[];
}

/** True when the log passes the address and topic criteria. */
export function logMatches(log: LogData, c: LogCriteria): boolean {
  if (c.addresses.length > 0 && !c.addresses.some((a) => equalBytes(a, log.address))) return false;
  if (c.topics.length > log.topics.length) return false;
  for (let i = 0; i < c.topics.length; i++) {
    const alts = c.topics[i];
    if (alts === null || alts.length === 0) continue;
    if (!alts.some((t) => equalBytes(t, log.topics[i]))) return false;
  }
  return true;
}
