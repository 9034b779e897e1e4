/**
 * The hash a transaction's signature covers (https://eips.ethereum.org/EIPS/eip-155, EIP-2930, EIP-1559):
 * legacy pre-155 keccak(rlp([nonce, gasPrice, gas, to, value, data])), legacy 155 the same list plus
 * [chainId, 0, 0], typed keccak(type || rlp(payload without yParity, r, s)).
 */
import { bigIntToBytes, concatBytes } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { encodeRlp } from '../../primitives/rlp.ts';
import { legacyFields, typedFields } from './codec.ts';
import type { Transaction } from './types.ts';

const EMPTY = new Uint8Array(0);

/** The bytes whose keccak256 is signed. Only the unsigned fields and `type`/`chainId` are read. */
export function signingPayload(tx: Transaction): Uint8Array {
  if (tx.type === 0) {
    const fields = legacyFields(tx);
    if (tx.chainId !== undefined) fields.push(bigIntToBytes(tx.chainId), EMPTY, EMPTY);
    return encodeRlp(fields);
  }
  return concatBytes(Uint8Array.of(tx.type), encodeRlp(typedFields(tx)));
}

/** keccak256 of the signing payload: what the sender signed and what recovery checks against. */
export function signingHash(tx: Transaction): Uint8Array {
  return keccak256(signingPayload(tx));
}
