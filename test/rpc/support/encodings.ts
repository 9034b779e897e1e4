/**
 * Independent checks of the node's consensus encodings, with ethers' RLP and keccak and @ethereumjs/mpt (none of our
 * codecs): a block's hash is keccak of its header RLP, and its transactions and receipts roots are the ordered tries
 * of the raw encodings the node serves.
 */
import { createMPT } from '@ethereumjs/mpt';
import { decodeRlp, encodeRlp, getBytes, hexlify, toBeArray } from 'ethers';

/** Root of the ordered trie (key RLP(index)) of `items` (each a 0x-hex consensus encoding). */
export async function orderedRoot(items: readonly string[]): Promise<string> {
  const trie = await createMPT();
  for (let i = 0; i < items.length; i++) await trie.put(getBytes(encodeRlp(i === 0 ? '0x' : toBeArray(i))), getBytes(items[i]));
  return hexlify(trie.root());
}

/**
 * A raw block's parts: its header RLP and each transaction's consensus encoding (a legacy transaction is an RLP list
 * inside the block, a typed one a byte string holding type || RLP).
 */
export function splitRawBlock(raw: string): { headerRlp: string; txs: string[] } {
  const [header, txs] = decodeRlp(raw) as [string[], (string | string[])[]];
  return { headerRlp: encodeRlp(header), txs: txs.map((t) => (Array.isArray(t) ? encodeRlp(t) : t)) };
}
