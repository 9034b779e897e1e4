/**
 * The header commitments to a body: transactions root, ommers hash, withdrawals root. A follower checks them before
 * executing a block it received (a body that does not match its header is refused without running anything).
 */
import { bytesToHex, equalBytes } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { encodeRlpListOfEncoded } from '../../primitives/rlp.ts';
import { orderedTrieRoot } from '../../trie/orderedTrieRoot.ts';
import type { HeaderCodec } from '../header/codec.ts';
import { ethereumHeaderCodec } from '../header/ethereumCodec.ts';
import type { Header } from '../header/types.ts';
import type { Transaction } from '../transaction/types.ts';
import { withdrawalsRoot } from '../withdrawal.ts';
import { BlockError } from './errors.ts';
import type { Block } from './types.ts';

/** Root of the transactions trie (values are the canonical envelopes). */
export function transactionsRoot(transactions: readonly Transaction[]): Uint8Array {
  return orderedTrieRoot(transactions.map((t) => t.raw));
}

/** keccak256(RLP(ommers)). */
export function ommersHash<H extends Header>(
  ommers: readonly H[],
  codec: HeaderCodec<H> = ethereumHeaderCodec as HeaderCodec<never>,
): Uint8Array {
  return keccak256(encodeRlpListOfEncoded(ommers.map((o) => codec.encode(o))));
}

function check(field: string, inHeader: Uint8Array, computed: Uint8Array): void {
  if (!equalBytes(inHeader, computed)) {
    throw new BlockError(
      'BLOCK_ROOT_MISMATCH',
      `block: header ${field} ${bytesToHex(inHeader)} does not match the body (${bytesToHex(computed)})`,
      {
        field,
        header: bytesToHex(inHeader),
        computed: bytesToHex(computed),
      },
    );
  }
}

/** Throws BLOCK_ROOT_MISMATCH naming the first header commitment the body does not match. */
export function verifyBodyRoots<H extends Header>(
  block: Block<H>,
  codec: HeaderCodec<H> = ethereumHeaderCodec as HeaderCodec<never>,
): void {
  check('transactionsRoot', block.header.transactionsRoot, transactionsRoot(block.transactions));
  check('ommersHash', block.header.ommersHash, ommersHash(block.ommers, codec));
  if (block.header.withdrawalsRoot !== undefined)
    check('withdrawalsRoot', block.header.withdrawalsRoot, withdrawalsRoot(block.withdrawals ?? []));
}
