/** Transaction-pool refusals, worded as geth's (core/txpool/errors.go, core/error.go) so wallets match them. */
import { XoneError } from '../errors.ts';

export type TxPoolErrorCode =
  | 'ALREADY_KNOWN'
  | 'NONCE_TOO_LOW'
  | 'INSUFFICIENT_FUNDS'
  | 'REPLACEMENT_UNDERPRICED'
  | 'UNDERPRICED'
  | 'POOL_FULL'
  | 'OVERSIZED_DATA'
  | 'GAS_LIMIT'
  | 'ACCOUNT_LIMIT';

export class TxPoolError extends XoneError<TxPoolErrorCode> {}
