/** Block hash = keccak256(RLP(header)), from the header's kept RLP when it has one. */
import { keccak256 } from '../../primitives/keccak.ts';
import type { HeaderCodec } from './codec.ts';
import { ethereumHeaderCodec } from './ethereumCodec.ts';
import type { Header } from './types.ts';

/** The block hash of `header` under `codec` (Ethereum's by default). */
export function headerHash<H extends Header>(
  header: H,
  codec: HeaderCodec<H> = ethereumHeaderCodec as unknown as HeaderCodec<H>,
): Uint8Array {
  return keccak256(header.rlp ?? codec.encode(header));
}
