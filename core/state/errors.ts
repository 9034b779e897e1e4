/** Typed errors of the state layer. */
import { XoneError, type CoreCode } from '../errors.ts';

export type StateErrorCode = CoreCode<'STATE_UNAVAILABLE'> | 'STATE_CORRUPT';

/** State that cannot be read: pruned history, unknown block, or a store that references missing data. */
export class StateError extends XoneError<StateErrorCode> {}
