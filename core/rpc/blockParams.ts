/**
 * Block selectors: geth's BlockNumber (tag or number) and BlockNumberOrHash (also an EIP-1898 object
 * `{blockNumber}` / `{blockHash, requireCanonical}` or a bare 32-byte hash string), with geth's messages.
 * https://eips.ethereum.org/EIPS/eip-1898
 */
import { ParamError, hash as parseHash, hexNumberBody, jsonKind } from './params.ts';

export type BlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized';

/** A block named by tag, number or hash. */
export type BlockSelector = { tag: BlockTag } | { number: bigint } | { hash: Uint8Array; requireCanonical: boolean };

const TAGS: ReadonlySet<string> = new Set(['latest', 'earliest', 'pending', 'safe', 'finalized']);
const MAX_INT64 = (1n << 63n) - 1n;

function decodeUint64(s: string): bigint {
  const body = hexNumberBody(s);
  if (body.length > 16) throw new ParamError('hex number > 64 bits');
  return BigInt('0x' + body);
}

/** geth BlockNumber.UnmarshalJSON: a tag or a hex number below 2^63 (a bare JSON number is read as text too). */
export function blockNumber(v: unknown): BlockSelector {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  if (TAGS.has(s)) return { tag: s as BlockTag };
  const n = decodeUint64(s);
  if (n > MAX_INT64) throw new ParamError('block number larger than int64');
  return { number: n };
}

/** geth BlockNumberOrHash.UnmarshalJSON. */
export function blockNumberOrHash(v: unknown): BlockSelector {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const hasNumber = o.blockNumber !== undefined && o.blockNumber !== null;
    const hasHash = o.blockHash !== undefined && o.blockHash !== null;
    if (hasNumber && hasHash) throw new ParamError('cannot specify both BlockHash and BlockNumber, choose one or the other');
    if (o.requireCanonical !== undefined && typeof o.requireCanonical !== 'boolean') {
      throw new ParamError(`json: cannot unmarshal ${jsonKind(o.requireCanonical)} into Go struct field .requireCanonical of type bool`);
    }
    if (hasHash) return { hash: parseHash(o.blockHash), requireCanonical: o.requireCanonical === true };
    if (hasNumber) return blockNumber(o.blockNumber);
    throw new ParamError('either BlockHash or BlockNumber must be specified');
  }
  if (typeof v !== 'string') throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type string`);
  if (TAGS.has(v)) return { tag: v as BlockTag };
  if (v.length === 66) return { hash: parseHash(v), requireCanonical: false };
  const n = decodeUint64(v);
  if (n > MAX_INT64) throw new ParamError('blocknumber too high');
  return { number: n };
}
