/** Typed block errors. RLP shape errors name their field themselves (`block.header.gasLimit`, `block.withdrawals[2]`). */
import { XoneError } from '../../errors.ts';

export type BlockErrorCode =
  /** The block or body list has the wrong number of parts. */
  | 'BLOCK_FIELD_COUNT'
  /** Withdrawals present without a header withdrawalsRoot, or absent with one. */
  | 'BLOCK_WITHDRAWALS_PRESENCE'
  /** A transaction in the body failed to decode; `meta.index` says which, `meta.cause` why. */
  | 'BLOCK_BAD_TRANSACTION'
  /** A header root (transactions, ommers, withdrawals) does not match the body. */
  | 'BLOCK_ROOT_MISMATCH';

export class BlockError extends XoneError<BlockErrorCode> {}
