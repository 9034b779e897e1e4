import { XoneError } from '../../core/errors.ts';

/** Codes of the errors measure-node raises for bad input or an unusable environment. */
export type MeasureNodeErrorCode =
  'BAD_OPTION' | 'BAD_METHOD_SPEC' | 'BAD_HEADER' | 'PROC_UNREADABLE' | 'LOG_UNREADABLE' | 'DATADIR_UNREADABLE';

/** A typed measure-node error; the CLI prints its message and exits 2. */
export class MeasureNodeError extends XoneError<MeasureNodeErrorCode> {}
