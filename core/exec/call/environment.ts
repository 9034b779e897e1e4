/**
 * Builds the `CallEnvironment` of a canonical block from a store reader (the RPC's read-only connection): its
 * header, the state after it from the change sets, and BLOCKHASH over the canonical index.
 */
import type { ChainConfig } from '../../chain/forks.ts';
import { ethereumHeaderCodec } from '../../chain/header/index.ts';
import { decodeRlp } from '../../primitives/rlp.ts';
import { StateError } from '../../state/errors.ts';
import { HistoricalState } from '../../state/store/history.ts';
import type { ChainReader } from '../../store/index.ts';
import type { CallEnvironment } from './types.ts';

/** The environment of canonical block `number`; throws StateError STATE_UNAVAILABLE when it is unknown or pruned. */
export function callEnvironmentAt(reader: ChainReader, config: ChainConfig, number: number): CallEnvironment {
  const row = reader.getHeaderByNumber(number);
  if (row === undefined) throw new StateError('STATE_UNAVAILABLE', `block ${number} is not on the canonical chain`, { number });
  const header = ethereumHeaderCodec.decode(decodeRlp(row.headerRlp), row.headerRlp);
  return {
    header,
    config,
    state: new HistoricalState(reader, number),
    blockHash: (n) => reader.getCanonicalHash(Number(n)),
  };
}
