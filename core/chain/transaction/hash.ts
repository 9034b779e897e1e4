/**
 * The hash a transaction's signature covers (https://eips.ethereum.org/EIPS/eip-155, EIP-2930, EIP-1559):
 * legacy pre-155 keccak(rlp([nonce, gasPrice, gas, to, value, data])), legacy 155 the same list plus
 * [chainId, 0, 0], typed keccak(type || rlp(payload without yParity, r, s)).
 */
import { bigIntToBytes, concatBytes } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { encodeRlp, rlpLengthOfLength, rlpListItemStarts, rlpStringLength, writeRlpHeader, writeRlpString } from '../../primitives/rlp.ts';
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

/** Fields after the signed ones: v, r, s (legacy) and yParity, r, s (typed). */
const SIGNATURE_FIELDS = 3;

/**
 * `signingPayload(tx)` cut from `tx.raw` instead of encoded from the fields: the signed fields' encodings are a run
 * of the envelope's bytes, so only a list header (and a legacy EIP-155 suffix) is new. Equal to `signingPayload` only
 * when the fields were decoded from `raw` (strict decoding is canonical, so re-encoding them gives the same bytes);
 * the follower's sender pipeline, which decodes every block's transactions and hashes each payload, takes it to skip
 * re-encoding every field (issue #18). A transaction assembled or edited field by field must use `signingPayload`.
 */
export function signingPayloadOfDecoded(tx: Transaction): Uint8Array {
  const raw = tx.raw;
  const typed = tx.type !== 0;
  const { payloadStart, end, starts } = rlpListItemStarts(raw, typed ? 1 : 0);
  // Strict decoding gave the envelope its 9 (legacy) or 11+ (typed) fields, so the signature's three are there.
  const signedEnd = starts[starts.length - SIGNATURE_FIELDS] ?? end;
  const body = raw.subarray(payloadStart, signedEnd);
  const chainId = !typed && tx.chainId !== undefined ? bigIntToBytes(tx.chainId) : undefined;
  // EIP-155 suffix: [chainId, 0, 0], the zeros as empty strings (0x80 each).
  const suffix = chainId === undefined ? 0 : rlpStringLength(chainId.length, chainId[0] as number) + 2;
  const payload = body.length + suffix;
  const head = payload < 56 ? 1 : 1 + rlpLengthOfLength(payload);
  const out = new Uint8Array((typed ? 1 : 0) + head + payload);
  let pos = 0;
  if (typed) out[pos++] = tx.type;
  pos = writeRlpHeader(out, pos, payload, 0xc0, 0xf7);
  out.set(body, pos);
  pos += body.length;
  if (chainId !== undefined) {
    pos = writeRlpString(out, pos, chainId);
    out[pos++] = 0x80;
    out[pos++] = 0x80;
  }
  return out;
}

/** keccak256 of `signingPayloadOfDecoded(tx)`: for transactions decoded from their envelope only. */
export function signingHashOfDecoded(tx: Transaction): Uint8Array {
  return keccak256(signingPayloadOfDecoded(tx));
}
