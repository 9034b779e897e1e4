/**
 * Sender recovery: the address whose key produced the transaction's signature over its signing hash. This is the
 * costly step of block import (one secp256k1 recovery per transaction), so the backend is a parameter: the recovery
 * pool passes its own, tests pass each backend in turn.
 *
 * Fork rules on the signature (EIP-2 low s, the chain id) belong to `validateTransactionStatic`; recovery itself only
 * refuses what no fork accepts: r or s outside [1, n-1], a v naming no parity, a signature with no public key.
 */
import { recoverAddress } from '../../primitives/secp256k1/address.ts';
import { defaultSecp256k1 } from '../../primitives/secp256k1/select.ts';
import { Secp256k1Error, type Secp256k1Backend } from '../../primitives/secp256k1/types.ts';
import { TxError } from './errors.ts';
import { signingHash } from './hash.ts';
import type { Transaction } from './types.ts';

/** The recovery id (y parity) the signature carries: from v for legacy, the yParity field for typed. */
export function recoveryId(tx: Transaction): 0 | 1 {
  const v = tx.v;
  if (tx.type !== 0) {
    if (v === 0n || v === 1n) return Number(v) as 0 | 1;
  } else if (v === 27n || v === 28n) {
    if (tx.chainId === undefined) return Number(v - 27n) as 0 | 1;
  } else if (v >= 35n && tx.chainId !== undefined && (v - 35n) >> 1n === tx.chainId) {
    return Number((v - 35n) & 1n) as 0 | 1;
  }
  throw new TxError(
    'TX_INVALID_SIGNATURE',
    `invalid transaction v, r, s values: v = ${v} does not fit a type ${tx.type} transaction on chain ${tx.chainId}`,
    {
      v: v.toString(),
      type: tx.type,
    },
  );
}

/** The 20-byte address that signed `tx`. Throws `TxError` (TX_INVALID_SIGNATURE or TX_INVALID_SENDER). */
export function recoverSender(tx: Transaction, backend: Secp256k1Backend = defaultSecp256k1()): Uint8Array {
  const recovery = recoveryId(tx);
  try {
    return recoverAddress(signingHash(tx), tx.r, tx.s, recovery, backend);
  } catch (err) {
    if (!(err instanceof Secp256k1Error)) throw err;
    if (err.code === 'SECP256K1_RECOVERY_FAILED')
      throw new TxError('TX_INVALID_SENDER', `invalid sender: ${err.message}`, { cause: err.code });
    throw new TxError('TX_INVALID_SIGNATURE', `invalid transaction v, r, s values: ${err.message}`, { cause: err.code });
  }
}
