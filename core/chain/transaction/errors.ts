/**
 * Transaction errors. Messages use geth's wording where geth has one (core/error.go, core/types/transaction.go), so
 * an operator comparing logs or a wallet matching strings sees the same text.
 */
import { XoneError } from '../../errors.ts';

export type TxErrorCode =
  /** Bytes that are not a transaction: bad RLP, wrong field count or kinds, non-canonical integers. */
  | 'TX_MALFORMED'
  /** "typed transaction too short" */
  | 'TX_TOO_SHORT'
  /** "transaction type not supported": unknown type byte, or a type whose fork is not active. */
  | 'TX_TYPE_NOT_SUPPORTED'
  /** A `to` or access-list address that is not 20 bytes, or a storage key that is not 32. */
  | 'TX_INVALID_ADDRESS'
  | 'TX_INVALID_STORAGE_KEY'
  /** A field over its size: nonce or gas limit over 64 bits, value or fees over 256. */
  | 'TX_FIELD_TOO_LARGE'
  /** "invalid transaction v, r, s values" */
  | 'TX_INVALID_SIGNATURE'
  /** "invalid chain id for signer" */
  | 'TX_INVALID_CHAIN_ID'
  /** "invalid sender": no public key recovers from the signature. */
  | 'TX_INVALID_SENDER'
  /** "nonce has max value" (EIP-2681) */
  | 'TX_NONCE_MAX'
  /** "intrinsic gas too low" */
  | 'TX_INTRINSIC_GAS'
  /** "max priority fee per gas higher than max fee per gas" */
  | 'TX_TIP_ABOVE_FEE_CAP'
  /** gas limit * fee cap does not fit 256 bits. */
  | 'TX_FEE_OVERFLOW'
  /** A type 3 transaction in its network form (with blobs): this node carries no blob sidecars. */
  | 'TX_BLOB_SIDECAR'
  /** A blob transaction breaking EIP-4844's static rules (no blobs, too many, a bad version byte). */
  | 'TX_BLOB_INVALID'
  /** A set-code transaction without authorizations (EIP-7702). */
  | 'TX_EMPTY_AUTH_LIST'
  /** "transaction gas limit too high" (EIP-7825, Osaka). */
  | 'TX_GAS_LIMIT_TOO_HIGH'
  /** "insufficient gas for floor data gas cost" (EIP-7623, Prague). */
  | 'TX_FLOOR_DATA_GAS'
  /** "max initcode size exceeded" (EIP-3860) */
  | 'TX_INIT_CODE_TOO_LARGE'
  /** Fields a signer must supply are missing or inconsistent with the type. */
  | 'TX_INCOMPLETE';

export class TxError extends XoneError<TxErrorCode> {}
