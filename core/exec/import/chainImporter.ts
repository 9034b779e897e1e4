/**
 * Blocks on any known parent, with fork choice (docs/decisions/0031-fork-choice-and-reorg-commit.md). A block that
 * extends the head goes through the import pipeline as before. A block on another stored parent is checked and
 * executed in full on its own branch (sideChain.ts) and stored as a side block; then the engine's fork choice says
 * whether its chain replaces the head. A reorg unwinds the canonical chain and its state to the fork point through
 * the change sets and imports the new branch again, verifying everything, inside one durable store transaction
 * (`ChainStore.reorg`): a crash at any point leaves the old head or the new one, never a mix.
 */
import { decodeBlock, type Block } from '../../chain/block/index.ts';
import type { ForkChoice } from '../../chain/forkChoice.ts';
import { headerHash, type Header } from '../../chain/header/index.ts';
import type { Transaction } from '../../chain/transaction/index.ts';
import { XoneError } from '../../errors.ts';
import { bytesToHex, equalBytes } from '../../primitives/hex.ts';
import { unwindStateAndTrie } from '../../state/store/trieAt.ts';
import type { ChainStore } from '../../store/index.ts';
import { BlockInvalidError } from '../errors.ts';
import type { BlockImporter, ImportedBlock } from './blockImporter.ts';
import { SideChainExecutor, type Branch } from './sideChain.ts';
import { storedBlock } from './storedBlock.ts';
import { writeSideBlock } from './writeBlock.ts';

/** How to insert one block. */
export interface InsertOptions {
  /** The block's senders when already recovered (or being recovered); otherwise recovered here. */
  senders?: Promise<Uint8Array[]> | Uint8Array[];
  /** The engine's check of the header against its parent (Clique: seal, signer, difficulty); before anything else. */
  verifyHeader?: (header: Header, parent: Header) => void;
}

/** A block that left the canonical chain in a reorg. */
export interface DroppedBlock {
  number: bigint;
  hash: Uint8Array;
  txHashes: Uint8Array[];
  /** Whether its logs bloom is not empty (a block without logs has no removed logs to read back). */
  hasLogs: boolean;
}

/**
 * A transaction of a dropped block whose nonce the new branch has not used (its sender's nonce at the new head is not
 * above it): the only ones worth offering to the pool again. The rest were mined again or replaced on the new
 * branch; filtering them here, where the new state is at hand, spares the main thread a refused admission each.
 */
export interface OrphanedTx {
  raw: Uint8Array;
  sender: Uint8Array;
}

/** A block that joined the canonical chain. */
export interface AddedBlock {
  block: Block;
  imported: ImportedBlock;
}

/** What a reorg did: the fork point, the blocks that left (lowest first) and those that joined (lowest first). */
export interface Reorg {
  ancestor: { number: bigint; hash: Uint8Array };
  dropped: DroppedBlock[];
  added: AddedBlock[];
  /** The dropped blocks' transactions the new branch left unused, in block order. */
  orphaned: OrphanedTx[];
}

/** The outcome of `insert`. */
export type InsertResult =
  | { kind: 'known'; hash: Uint8Array }
  | ({ kind: 'head' } & AddedBlock)
  | { kind: 'side'; number: bigint; hash: Uint8Array }
  | { kind: 'reorg'; reorg: Reorg };

/** Decodes a block's RLP; a malformed one is an invalid block (BLOCK_BAD_BODY). */
export function decodeBlockRlp(rlp: Uint8Array): Block {
  try {
    return decodeBlock(rlp);
  } catch (err) {
    throw new BlockInvalidError('BLOCK_BAD_BODY', `invalid block: cannot decode: ${(err as Error).message}`, {
      cause: (err as XoneError).code,
    });
  }
}

/** Inserts blocks into the chain of one importer, choosing the head by the engine's fork choice. */
export class ChainImporter {
  private readonly side: SideChainExecutor;

  constructor(
    readonly importer: BlockImporter,
    private readonly forkChoice: ForkChoice,
  ) {
    this.side = new SideChainExecutor(importer);
  }

  private get store(): ChainStore {
    return this.importer.store;
  }

  /** Decodes and inserts one block's RLP. */
  insertRlp(rlp: Uint8Array, options: InsertOptions = {}): Promise<InsertResult> {
    return this.insert(decodeBlockRlp(rlp), options);
  }

  /**
   * Inserts `block`: extends the head, or is stored as a side block (and becomes the head through a reorg when fork
   * choice prefers its chain). A block already stored is `known` and changes nothing. Throws BlockInvalidError for an
   * invalid block (BLOCK_UNKNOWN_PARENT when its parent is not stored) and IMPORT_FORK_TOO_DEEP when it forks off
   * further below the head than the store keeps side chains (or below the finalized block); nothing is written then.
   */
  async insert(block: Block, options: InsertOptions = {}): Promise<InsertResult> {
    const header = block.header;
    const hash = headerHash(header);
    if (this.store.getHeaderByHash(hash) !== undefined) return { kind: 'known', hash };
    const head = this.importer.headInfo;
    if (equalBytes(header.parentHash, head.hash)) {
      options.verifyHeader?.(header, head.header);
      const imported = await this.importer.importBlock(block, options.senders);
      return { kind: 'head', block, imported };
    }
    const parent = this.importer.parentInfo(header.parentHash);
    if (parent === undefined)
      throw new BlockInvalidError('BLOCK_UNKNOWN_PARENT', `invalid block: unknown parent ${bytesToHex(header.parentHash)}`, {
        number: header.number.toString(),
        parentHash: bytesToHex(header.parentHash),
      });
    options.verifyHeader?.(header, parent.header);
    this.importer.checkBlock(block, parent);
    const branch = this.side.branchOf(parent.hash);
    this.checkForkPoint(branch, header);
    const senders = await this.importer.senders(block, options.senders);
    const exec = await this.side.execute(block, hash, senders, branch);
    const td = (this.importer.totalDifficulty(parent.hash) as bigint) + header.difficulty;
    writeSideBlock(this.store, { block, hash, receipts: exec.receipts, senders, td });
    const current = {
      hash: head.hash,
      parentHash: head.header.parentHash,
      number: head.header.number,
      td: this.importer.headTd,
      difficulty: head.header.difficulty,
    };
    const candidate = { hash, parentHash: header.parentHash, number: header.number, td, difficulty: header.difficulty };
    if (!this.forkChoice.reorgNeeded(current, candidate)) return { kind: 'side', number: header.number, hash };
    const reorg = await this.reorgTo({ ancestor: branch.ancestor, blocks: [...branch.blocks, { hash, header }] });
    return { kind: 'reorg', reorg };
  }

  /** Side chains fork off within the store's side-chain depth of the head, and never below the finalized block. */
  private checkForkPoint(branch: Branch, header: Header): void {
    const head = Number(this.importer.headInfo.header.number);
    const depth = head - branch.ancestor.number;
    const limit = this.store.sideBounds.maxDepth;
    const finalized = this.store.getHead('finalized');
    if (depth > limit || (finalized !== undefined && branch.ancestor.number < finalized.number))
      throw new XoneError(
        'IMPORT_FORK_TOO_DEEP',
        `block ${header.number} forks off at ${branch.ancestor.number}, ${depth} blocks below the head ${head} (side chains are kept ${limit} deep${finalized ? `, finalized ${finalized.number}` : ''})`,
        { number: header.number.toString(), ancestor: branch.ancestor.number, head, limit },
      );
  }

  /**
   * Makes `branch` (stored blocks above a canonical ancestor) the canonical chain in one durable transaction: unwind
   * chain and state to the ancestor, then import every branch block again through the verifying pipeline. On any
   * failure the transaction rolls back and the importer returns to the old head.
   */
  private async reorgTo(branch: Branch): Promise<Reorg> {
    const ancestor = branch.ancestor.number;
    const oldHead = this.importer.headInfo;
    const { dropped, txs } = await this.canonicalAbove(ancestor, Number(oldHead.header.number));
    const added: AddedBlock[] = [];
    try {
      await this.store.reorg(
        ancestor,
        (tx) => unwindStateAndTrie(tx, this.importer.state.nodes, ancestor),
        async () => {
          this.importer.reopenAt(ancestor);
          for (const b of branch.blocks) {
            const { block, senders } = storedBlock(this.store, b.hash, b.header);
            added.push({ block, imported: await this.importer.importBlock(block, senders) });
          }
        },
      );
    } catch (err) {
      this.importer.setHead(oldHead);
      throw err;
    }
    const nonces = new Map<string, bigint>();
    const orphaned = txs.filter(({ tx, sender }) => {
      const key = bytesToHex(sender);
      let next = nonces.get(key);
      if (next === undefined) nonces.set(key, (next = this.importer.state.getAccount(sender)?.nonce ?? 0n));
      return tx.nonce >= next;
    });
    return {
      ancestor: { number: BigInt(ancestor), hash: branch.ancestor.hash },
      dropped,
      added,
      orphaned: orphaned.map(({ tx, sender }) => ({ raw: tx.raw, sender })),
    };
  }

  /** The canonical blocks `from + 1 .. to`, lowest first, and their transactions with senders. */
  private async canonicalAbove(
    from: number,
    to: number,
  ): Promise<{ dropped: DroppedBlock[]; txs: { tx: Transaction; sender: Uint8Array }[] }> {
    const dropped: DroppedBlock[] = [];
    const txs: { tx: Transaction; sender: Uint8Array }[] = [];
    for (let n = from + 1; n <= to; n++) {
      const hash = this.store.getCanonicalHash(n);
      const row = hash && this.store.getHeaderByHash(hash);
      if (!hash || !row) throw new XoneError('STORE_NO_HEAD', `canonical block ${n} is missing`);
      const header = this.importer.parentInfo(hash)?.header as Header;
      const { block, senders } = storedBlock(this.store, hash, header);
      const recovered = await this.importer.senders(block, senders);
      block.transactions.forEach((tx, i) => txs.push({ tx, sender: recovered[i] }));
      const hasLogs = header.logsBloom.some((b) => b !== 0);
      dropped.push({ number: BigInt(n), hash, txHashes: block.transactions.map((t) => t.hash), hasLogs });
    }
    return { dropped, txs };
  }
}
