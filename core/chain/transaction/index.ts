/**
 * Public surface of transactions: legacy (pre- and post-EIP-155), EIP-2930 and EIP-1559 — decode, encode, hash,
 * signing hash, sender recovery, signing, intrinsic gas and static validity. Other layers import from here only.
 */
export {
  MAX_UINT256,
  MAX_UINT64,
  type AccessListItem,
  type Authorization,
  type Transaction,
  type TxType,
  type UnsignedTransaction,
} from './types.ts';
export { TxError, type TxErrorCode } from './errors.ts';
export {
  decodePooledTransaction,
  decodeTransaction,
  decodeTransactionFromBlockItem,
  encodeTransaction,
  encodeTransactionForBlock,
} from './codec.ts';
export { signingHash, signingHashOfDecoded, signingPayload, signingPayloadOfDecoded } from './hash.ts';
export { recoverSender, recoveryId } from './sender.ts';
export { impersonatedTransaction, signTransaction, unsignedTransaction } from './sign.ts';
export { authorizationSigningHash, recoverAuthority, signAuthorization } from './authorization.ts';
export { floorDataGas, intrinsicGas, PER_AUTH_EXISTING_REFUND, type IntrinsicGasFields } from './intrinsicGas.ts';
export { effectiveGasPrice, type FeeFields } from './effectiveGasPrice.ts';
export {
  BLOB_COMMITMENT_VERSION_KZG,
  MAX_BLOBS_PER_TX,
  MAX_INIT_CODE_SIZE,
  MAX_TX_GAS,
  validateTransactionStatic,
  type StaticValidityContext,
} from './validate.ts';
