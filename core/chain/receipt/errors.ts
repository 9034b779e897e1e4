/** Typed receipt errors beyond RLP shape errors (which name the field themselves). */
import { XoneError } from '../../errors.ts';

export type ReceiptErrorCode =
  /** The type byte is not one we know (0x01, 0x02). */
  | 'RECEIPT_UNKNOWN_TYPE'
  /** The status/post-state field is neither 0x, 0x01 nor a 32-byte root. */
  | 'RECEIPT_BAD_STATUS'
  /** The stored bloom does not match the logs. */
  | 'RECEIPT_BAD_BLOOM';

export class ReceiptError extends XoneError<ReceiptErrorCode> {}
