/**
 * Pre-encodes a block the node just produced or imported (both transaction forms and its receipts) into the
 * encoding cache, so the first client asking for the new head is served by splicing text, not by encoding 1,428
 * transactions on its request path. The node calls it after the block is durable.
 */
import { type EncodingCache, blockKey, receiptsKey } from './cache.ts';
import { encodeBlock } from './encode/block.ts';
import { encodeReceipt } from './encode/receipt.ts';
import { type BlockData, type ReceiptData } from './encode/types.ts';
import { bytesToHex } from '../primitives/hex.ts';

export function primeEncodings(cache: EncodingCache, block: BlockData, receipts?: readonly ReceiptData[]): void {
  const hashHex = bytesToHex(block.header.hash);
  cache.set(blockKey(hashHex, false), JSON.stringify(encodeBlock(block, false)));
  cache.set(blockKey(hashHex, true), JSON.stringify(encodeBlock(block, true)));
  if (receipts) cache.set(receiptsKey(hashHex), JSON.stringify(receipts.map(encodeReceipt)));
}
