/** Shape checks of a `BlockRecord` before anything is written. */
import { StoreError } from './errors.ts';
import type { BlockRecord } from './types.ts';

function bad(block: BlockRecord, why: string): never {
  throw new StoreError('STORE_BAD_BLOCK', `block ${block.number}: ${why}`, { number: block.number });
}

/** Throws STORE_BAD_BLOCK when a field has the wrong size or type. */
export function validateBlockRecord(block: BlockRecord): void {
  if (!Number.isSafeInteger(block.number) || block.number < 0) bad(block, 'number must be a non-negative safe integer');
  if (block.hash?.length !== 32) bad(block, 'hash must be 32 bytes');
  if (block.parentHash?.length !== 32) bad(block, 'parentHash must be 32 bytes');
  if (!(block.headerRlp instanceof Uint8Array) || block.headerRlp.length === 0) bad(block, 'headerRlp must be non-empty bytes');
  if (!(block.bodyRlp instanceof Uint8Array) || !(block.receiptsRlp instanceof Uint8Array))
    bad(block, 'bodyRlp and receiptsRlp must be bytes');
  block.txHashes.forEach((h, i) => {
    if (h?.length !== 32) bad(block, `txHashes[${i}] must be 32 bytes`);
  });
  if (block.senders !== undefined) {
    if (block.senders.length !== block.txHashes.length)
      bad(block, `${block.senders.length} senders for ${block.txHashes.length} transactions`);
    block.senders.forEach((a, i) => {
      if (a?.length !== 20) bad(block, `senders[${i}] must be 20 bytes`);
    });
  }
  block.logs.forEach((log, i) => {
    if (log.address?.length !== 20) bad(block, `logs[${i}].address must be 20 bytes`);
    if (log.topics.length > 4 || log.topics.some((t) => t?.length !== 32)) bad(block, `logs[${i}].topics must be 0-4 topics of 32 bytes`);
    if (!Number.isInteger(log.txIndex) || !Number.isInteger(log.logIndex)) bad(block, `logs[${i}] positions must be integers`);
  });
}
