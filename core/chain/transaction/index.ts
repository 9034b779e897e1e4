/**
 * Public surface of transactions: legacy (pre- and post-EIP-155), EIP-2930 and EIP-1559 — decode, encode, hash,
 * signing hash, sender recovery, signing, intrinsic gas and static validity. Other layers import from here only.
 */
export { MAX_UINT256, MAX_UINT64, type AccessListItem, type Transaction, type TxType, type UnsignedTransaction } from './types.ts';
export { TxError, type TxErrorCode } from './errors.ts';
export { decodeTransaction, decodeTransactionFromBlockItem, encodeTransaction, encodeTransactionForBlock } from './codec.ts';
export { signingHash, signingPayload } from './hash.ts';
export { recoverSender, recoveryId } from './sender.ts';
export { impersonatedTransaction, signTransaction, unsignedTransaction } from './sign.ts';
export { intrinsicGas } from './intrinsicGas.ts';
export { effectiveGasPrice, type FeeFields } from './effectiveGasPrice.ts';
export { MAX_INIT_CODE_SIZE, validateTransactionStatic, type StaticValidityContext } from './validate.ts';
