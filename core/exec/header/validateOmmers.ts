/**
 * Ommer (uncle) rules of proof-of-work blocks (geth's ethash VerifyUncles): at most two; none already included in
 * the last seven generations, none an ancestor, each the child of one of the last seven ancestors other than the
 * block's parent; each a valid header against its own parent. Clique and post-merge blocks carry none (the
 * ommers hash check rejects any).
 */
import type { ChainConfig } from '../../chain/forks.ts';
import { forkAt } from '../../chain/forks.ts';
import { headerHash, type Header } from '../../chain/header/index.ts';
import { bytesToHex } from '../../primitives/hex.ts';
import { BlockInvalidError } from '../errors.ts';
import { validateHeader } from './validateHeader.ts';

const MAX_OMMERS = 2;
const GENERATIONS = 7;

/** An ancestor of the block being checked: its header, hash and the ommers its own body included. */
export interface Ancestor {
  header: Header;
  hash: Uint8Array;
  ommers: Header[];
}

function fail(message: string, meta: Record<string, unknown> = {}): BlockInvalidError {
  return new BlockInvalidError('BLOCK_BAD_BODY', `invalid block: ommers: ${message}`, meta);
}

/**
 * Checks `ommers` of the block with `header`. `ancestor(hash)` returns a stored block by hash (the parent first,
 * walking back up to seven generations).
 */
export function validateOmmers(
  header: Header,
  ommers: readonly Header[],
  config: ChainConfig,
  ancestor: (hash: Uint8Array) => Ancestor | undefined,
): void {
  if (ommers.length === 0) return;
  if (ommers.length > MAX_OMMERS)
    throw fail(`too many: ${ommers.length} > ${MAX_OMMERS}`, { field: 'ommers', expected: `<= ${MAX_OMMERS}`, actual: ommers.length });
  const ancestors = new Map<string, Ancestor>();
  const included = new Set<string>();
  let hash = header.parentHash;
  for (let i = 0; i < GENERATIONS; i++) {
    const a = ancestor(hash);
    if (a === undefined) break;
    ancestors.set(bytesToHex(a.hash), a);
    for (const o of a.ommers) included.add(bytesToHex(headerHash(o)));
    hash = a.header.parentHash;
  }
  const parentKey = bytesToHex(header.parentHash);
  for (const ommer of ommers) {
    const key = bytesToHex(headerHash(ommer));
    if (included.has(key)) throw fail(`duplicate ommer ${key}`);
    included.add(key);
    if (ancestors.has(key)) throw fail(`ommer ${key} is an ancestor`);
    const parentOfOmmer = ancestors.get(bytesToHex(ommer.parentHash));
    if (parentOfOmmer === undefined || bytesToHex(ommer.parentHash) === parentKey)
      throw fail(`dangling ommer ${key}: its parent is not a recent ancestor other than the block's parent`);
    const fork = forkAt(config, Number(ommer.number), Number(ommer.timestamp));
    const parentFork = forkAt(config, Number(parentOfOmmer.header.number), Number(parentOfOmmer.header.timestamp));
    try {
      validateHeader(ommer, { header: parentOfOmmer.header, hash: parentOfOmmer.hash, fork: parentFork }, config, fork);
    } catch (err) {
      const e = err as BlockInvalidError;
      throw fail(`ommer ${key}: ${e.message.replace(/^invalid block: /, '')}`, { ...e.meta });
    }
  }
}
