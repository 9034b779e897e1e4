/**
 * Typed errors of the execution layer. Messages name the field and both values, so a rejected block or transaction
 * says exactly what was wrong (issue #4, "Bad input").
 */
import { XoneError } from '../errors.ts';

/** Why a transaction cannot be included (consensus-invalid), as opposed to a transaction that runs and reverts. */
export type TxInvalidCode =
  | 'TX_NONCE_MISMATCH'
  | 'TX_NONCE_MAX'
  | 'TX_INSUFFICIENT_FUNDS'
  | 'TX_INTRINSIC_GAS'
  | 'TX_FEE_CAP_TOO_LOW'
  | 'TX_TIP_ABOVE_FEE_CAP'
  | 'TX_GAS_LIMIT_REACHED'
  | 'TX_SENDER_NOT_EOA'
  | 'TX_TYPE_NOT_SUPPORTED'
  | 'TX_INIT_CODE_TOO_LARGE'
  | 'TX_GAS_LIMIT_TOO_HIGH'
  | 'TX_FLOOR_DATA_GAS'
  | 'TX_BLOB_INVALID'
  | 'TX_BLOB_FEE_CAP_TOO_LOW'
  | 'TX_INVALID';

/** A transaction that no valid block may contain. */
export class TxInvalidError extends XoneError<TxInvalidCode> {}

/** Why a block is rejected. */
export type BlockInvalidCode =
  | 'BLOCK_BAD_HEADER'
  | 'BLOCK_BAD_PARENT'
  | 'BLOCK_UNKNOWN_PARENT'
  | 'BLOCK_BAD_STATE_ROOT'
  | 'BLOCK_BAD_RECEIPTS_ROOT'
  | 'BLOCK_BAD_GAS_USED'
  | 'BLOCK_BAD_LOGS_BLOOM'
  | 'BLOCK_BAD_TX'
  | 'BLOCK_BAD_BODY'
  | 'BLOCK_BAD_BLOB_GAS'
  | 'BLOCK_BAD_REQUESTS';

/** A block that fails validation or execution; `meta.field`, `meta.expected`, `meta.actual` say why. */
export class BlockInvalidError extends XoneError<BlockInvalidCode> {}

/** Builds a mismatch error naming the field and both values. */
export function mismatch(code: BlockInvalidCode, field: string, expected: unknown, actual: unknown): BlockInvalidError {
  const show = (v: unknown): string => (typeof v === 'bigint' ? v.toString() : String(v));
  return new BlockInvalidError(code, `invalid block: ${field}: expected ${show(expected)}, got ${show(actual)}`, {
    field,
    expected: show(expected),
    actual: show(actual),
  });
}
