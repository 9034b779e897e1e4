/**
 * Execution of side-chain blocks (docs/state.md, "Side chains"): a block whose parent is stored but is not the head
 * is executed in full, as geth does, on the state of its own branch without touching the committed state: the state
 * after the fork point (the highest canonical block of the branch, read from the change sets) under the changes of
 * the branch's earlier blocks, and a trie opened at the fork point's root whose new nodes stay in memory. So a side
 * block is stored only once it is known valid (roots, receipts, gas), and a reorg to it cannot meet an invalid block.
 *
 * Each executed side block leaves a `BranchLayer` (its changes) in a bounded cache; the open trie of the last branch
 * tip is kept so that a branch growing block by block replays nothing. A layer missing from the cache (evicted, or a
 * restart) is rebuilt by executing its block again from its stored body and senders.
 */
import type { Block } from '../../chain/block/index.ts';
import { forkAt } from '../../chain/forks.ts';
import { ethereumHeaderCodec, type Header } from '../../chain/header/index.ts';
import { XoneError } from '../../errors.ts';
import { bytesToHex, equalBytes } from '../../primitives/hex.ts';
import { decodeRlp } from '../../primitives/rlp.ts';
import { BranchState, branchLayer, type BranchLayer } from '../../state/branchState.ts';
import { HistoricalState } from '../../state/store/history.ts';
import { OverlayNodeStore, trieAtBlock } from '../../state/store/trieAt.ts';
import { StateRootComputer } from '../../state/stateRoot.ts';
import type { ChainStore } from '../../store/index.ts';
import type { Receipt } from '../../chain/receipt/index.ts';
import { executeBlock } from '../block/executeBlock.ts';
import { mismatch } from '../errors.ts';
import type { BlockImporter } from './blockImporter.ts';
import { storedBlock } from './storedBlock.ts';

/** Executed side blocks whose changes are kept in memory. */
const LAYER_CACHE = 512;

/** A stored block of a side branch, oldest first. */
interface BranchBlock {
  hash: Uint8Array;
  header: Header;
}

/** Where a side branch leaves the canonical chain, and its blocks above that point (oldest first). */
export interface Branch {
  ancestor: { number: number; hash: Uint8Array; header: Header };
  blocks: BranchBlock[];
}

/** What executing a side block produced (it is valid: every root matched). */
export interface SideExecution {
  receipts: Receipt[];
  gasUsed: bigint;
  fastPathTxs: number;
}

/** The open trie at a branch tip: reused when the next block extends that tip. */
interface OpenTrie {
  tip: string;
  computer: StateRootComputer;
}

/** Executes side-chain blocks for one importer. */
export class SideChainExecutor {
  private readonly layers = new Map<string, BranchLayer>();
  private open: OpenTrie | undefined;

  constructor(private readonly importer: BlockImporter) {
    // Cached tries read the batch's buffered nodes, which a commit may drop (decision 0025) and a rollback loses.
    importer.store.addBatchHook({
      blockAccepted: () => {},
      beforeCommit: () => (this.open = undefined),
      batchAborted: () => {
        this.open = undefined;
        this.layers.clear();
      },
    });
  }

  private get store(): ChainStore {
    return this.importer.store;
  }

  /**
   * The branch of the stored block `tip` down to the canonical chain. Throws IMPORT_UNKNOWN_ANCESTOR when the walk
   * meets a block that is not stored.
   */
  branchOf(tip: Uint8Array): Branch {
    const blocks: BranchBlock[] = [];
    let cursor = tip;
    for (;;) {
      const row = this.store.getHeaderByHash(cursor);
      if (row === undefined)
        throw new XoneError('IMPORT_UNKNOWN_ANCESTOR', `block ${bytesToHex(cursor)} of a side branch is not stored`, {
          hash: bytesToHex(cursor),
        });
      const header = ethereumHeaderCodec.decode(decodeRlp(row.headerRlp), row.headerRlp);
      const canonical = this.store.getCanonicalHash(row.number);
      if (canonical !== undefined && equalBytes(canonical, row.hash)) {
        blocks.reverse();
        return { ancestor: { number: row.number, hash: row.hash, header }, blocks };
      }
      blocks.push({ hash: row.hash, header });
      cursor = row.parentHash;
    }
  }

  /**
   * Executes `block` (hash `hash`, senders recovered) on top of `branch` (its parent's branch) and checks gas, bloom,
   * receipts root and state root. Throws BlockInvalidError when it does not match its header.
   */
  async execute(block: Block, hash: Uint8Array, senders: readonly Uint8Array[], branch: Branch): Promise<SideExecution> {
    const parentKey = bytesToHex(branch.blocks.length > 0 ? branch.blocks[branch.blocks.length - 1].hash : branch.ancestor.hash);
    const base = new HistoricalState(this.store, branch.ancestor.number);
    const layers = await this.layersOf(branch, base);
    const config = this.importer.config;
    const header = block.header;
    const exec = await executeBlock(block, senders, {
      hosts: this.importer.hosts,
      state: new BranchState(base, layers),
      config,
      fork: forkAt(config, Number(header.number), Number(header.timestamp)),
      blockHash: (n) => branchHash(branch, n) ?? this.store.getCanonicalHash(Number(n)),
      fastPath: this.importer.fastPath,
    });
    const open = this.open?.tip === parentKey ? this.open : { tip: parentKey, computer: this.trieAt(branch, base, layers) };
    this.open = undefined;
    const changes = exec.state.changes();
    const update = open.computer.apply(changes, (key) => exec.state.accountByKey(key));
    if (!equalBytes(update.root, header.stateRoot))
      throw mismatch('BLOCK_BAD_STATE_ROOT', 'stateRoot', bytesToHex(update.root), bytesToHex(header.stateRoot));
    const key = bytesToHex(hash);
    this.remember(key, branchLayer(changes, update.encoded));
    this.open = { tip: key, computer: open.computer };
    return { receipts: exec.receipts, gasUsed: exec.gasUsed, fastPathTxs: exec.fastPathTxs };
  }

  /** The layers of `branch`'s blocks, executing again those not cached (oldest first, each on the ones before). */
  private async layersOf(branch: Branch, base: HistoricalState): Promise<BranchLayer[]> {
    const out: BranchLayer[] = [];
    let computer: StateRootComputer | undefined;
    for (const [i, b] of branch.blocks.entries()) {
      const key = bytesToHex(b.hash);
      const cached = this.layers.get(key);
      if (cached !== undefined) {
        out.push(cached);
        continue;
      }
      // Rebuild from here on: the trie at this block's parent, then this block executed on the layers below it.
      computer ??= this.trieAt({ ancestor: branch.ancestor, blocks: branch.blocks.slice(0, i) }, base, out);
      const stored = storedBlock(this.store, b.hash, b.header);
      const state = new BranchState(base, out);
      const exec = await executeBlock(stored.block, await this.importer.senders(stored.block, stored.senders), {
        hosts: this.importer.hosts,
        state,
        config: this.importer.config,
        fork: forkAt(this.importer.config, Number(b.header.number), Number(b.header.timestamp)),
        blockHash: (n) => branchHash(branch, n) ?? this.store.getCanonicalHash(Number(n)),
        fastPath: this.importer.fastPath,
      });
      const changes = exec.state.changes();
      const update = computer.apply(changes, (k) => exec.state.accountByKey(k));
      if (!equalBytes(update.root, b.header.stateRoot))
        throw new XoneError('STATE_CORRUPT', `stored side block ${b.header.number} executes to another state root`, {
          number: b.header.number.toString(),
        });
      const layer = branchLayer(changes, update.encoded);
      this.remember(key, layer);
      out.push(layer);
    }
    return out;
  }

  /** A trie at the state of `branch`'s last block: the fork point's trie with the branch layers replayed. */
  private trieAt(branch: Branch, base: HistoricalState, layers: readonly BranchLayer[]): StateRootComputer {
    const { number, header } = branch.ancestor;
    const overlay = new OverlayNodeStore(this.importer.state.nodes);
    const at = trieAtBlock(this.store, overlay, number, header.stateRoot);
    const computer = new StateRootComputer(at.nodes, header.stateRoot);
    layers.forEach((layer, i) => {
      // Accounts whose storage alone changed keep the record they had before the block: the layers below it.
      const before = new BranchState(base, layers.slice(0, i));
      computer.apply(layer.changes, (key) => before.getAccountByKey(key, Buffer.from(key, 'hex')) ?? null);
    });
    return computer;
  }

  private remember(key: string, layer: BranchLayer): void {
    this.layers.delete(key);
    this.layers.set(key, layer);
    if (this.layers.size > LAYER_CACHE) this.layers.delete(this.layers.keys().next().value as string);
  }
}

/** Hash of `branch`'s block at height `n`, if the branch holds that height. */
function branchHash(branch: Branch, n: bigint): Uint8Array | undefined {
  const i = Number(n) - branch.ancestor.number - 1;
  return i >= 0 && i < branch.blocks.length ? branch.blocks[i].hash : undefined;
}
