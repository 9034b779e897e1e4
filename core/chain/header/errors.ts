/** Typed errors of header decoding beyond RLP shape errors (which name the field themselves). */
import { XoneError } from '../../errors.ts';

export type HeaderErrorCode =
  /** The header list has a field count no codec version knows. */
  | 'HEADER_FIELD_COUNT'
  /** A field is missing or present where the header's shape does not allow it (e.g. withdrawalsRoot without baseFee). */
  | 'HEADER_BAD_FIELD';

export class HeaderError extends XoneError<HeaderErrorCode> {}
