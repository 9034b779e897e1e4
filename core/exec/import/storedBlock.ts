/** A stored block read back for execution: its header and body decoded, and its senders as the store kept them. */
import { decodeBlockBody, type Block } from '../../chain/block/index.ts';
import type { Header } from '../../chain/header/index.ts';
import { XoneError } from '../../errors.ts';
import type { ChainStore } from '../../store/index.ts';

/** The block `hash` (header `header`) and its stored senders (undefined when not stored: recover them). */
export function storedBlock(store: ChainStore, hash: Uint8Array, header: Header): { block: Block; senders?: Uint8Array[] } {
  const body = store.getBody(hash);
  if (body === undefined) throw new XoneError('IMPORT_UNKNOWN_ANCESTOR', `block ${header.number} has no stored body`);
  const block: Block = { header, ...decodeBlockBody(body, header) };
  const senders = store.getSenders(hash);
  return senders !== undefined && senders.length === block.transactions.length ? { block, senders } : { block };
}
