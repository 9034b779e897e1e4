import { XoneError } from '../errors.ts';

/** Why the ethstats reporter refused an input or dropped a connection. */
export type EthstatsErrorCode = 'BAD_URL' | 'UNAUTHORIZED' | 'HANDSHAKE' | 'BAD_MESSAGE' | 'WORKER';

/** A typed ethstats error; crosses the worker boundary through `toObject()`. */
export class EthstatsError extends XoneError<EthstatsErrorCode> {}
