/**
 * The header codec is a per-chain parameter (ARCHITECTURE.md, "Chain"): Ethereum's is the default; XDPoS-style chains
 * append their own fields and plug in a codec whose header type extends `Header`.
 */
import type { RlpItem } from '../../primitives/rlp.ts';
import type { Header } from './types.ts';

export interface HeaderCodec<H extends Header = Header> {
  /** A name for logs and errors ("ethereum", "xdc"). */
  readonly name: string;
  /**
   * Decodes a header from its RLP item. `rlp`, when the caller has it (a block being decoded), is kept on the header
   * as its exact encoding; otherwise the codec re-encodes the item once.
   */
  decode(item: RlpItem, rlp?: Uint8Array): H;
  /** The header's RLP (its `rlp` field when present). */
  encode(header: H): Uint8Array;
}
