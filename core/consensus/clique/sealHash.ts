/**
 * The hash a Clique signer signs: keccak256 of the header RLP with the 65-byte seal cut from extraData (EIP-225,
 * geth's `SealHash`). Every other field, including London's baseFee and Shanghai's withdrawalsRoot, is covered.
 */
import { ethereumHeaderFields, type Header } from '../../chain/header/index.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { encodeRlp } from '../../primitives/rlp.ts';
import { EXTRA_SEAL } from './extraData.ts';

export function cliqueSealHash(header: Header): Uint8Array {
  const unsealed: Header = { ...header, extraData: header.extraData.subarray(0, Math.max(0, header.extraData.length - EXTRA_SEAL)) };
  delete unsealed.rlp;
  return keccak256(encodeRlp(ethereumHeaderFields(unsealed)));
}
