/**
 * Builds valid blocks on any parent, in memory, for the reorg benchmark and the side-chain tests: a tree of blocks
 * over one genesis, each executed by the node's own executor on its branch's state (`BranchState` over the genesis
 * state, one layer per ancestor) with every root filled in. Clique-shaped headers without seals (import them with
 * seal checks off): difficulty 2 (in turn) or 1 (out of turn) is the caller's choice, so any total difficulty can be
 * arranged. Nothing here is timed.
 */
import { encodeBlock, transactionsRoot, type Block } from '../../chain/block/index.ts';
import { forkAt, type ChainConfig } from '../../chain/forks.ts';
import type { GenesisAlloc } from '../../chain/genesis/index.ts';
import { EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT, headerHash, type Header } from '../../chain/header/index.ts';
import { receiptsRoot } from '../../chain/receipt/index.ts';
import { signTransaction, type Transaction } from '../../chain/transaction/index.ts';
import { runBlock } from '../../exec/block/executeBlock.ts';
import { EvmHostCache } from '../../exec/evmHost.ts';
import { expectedBaseFee } from '../../exec/header/baseFee.ts';
import { bytesToHex } from '../../primitives/hex.ts';
import { addressFromPrivateKey } from '../../primitives/secp256k1/index.ts';
import { applyAlloc, type AllocAccount } from '../../state/alloc.ts';
import { BranchState, branchLayer, type BranchLayer } from '../../state/branchState.ts';
import { MemoryState } from '../../state/memoryState.ts';
import { StateRootComputer } from '../../state/stateRoot.ts';

const GAS_LIMIT = 30_000_000n;

/** One built block. */
export interface TreeBlock {
  number: bigint;
  hash: Uint8Array;
  header: Header;
  rlp: Uint8Array;
  /** Layers of every block from genesis to this one (its state). */
  layers: readonly BranchLayer[];
  /** Transaction hashes, in order. */
  txHashes: Uint8Array[];
}

/** What one child block carries. */
export interface ChildSpec {
  /** 2 = in turn (default), 1 = out of turn. */
  difficulty?: bigint;
  /** Plain transfers of `value` wei from each key to `to` (nonces from the parent's state). */
  transfers?: { key: Uint8Array; to: Uint8Array; value: bigint }[];
  /** Calls of `to` (the logging contract) from each key: one log per call. */
  calls?: { key: Uint8Array; to: Uint8Array }[];
  /** Seconds after the parent (default 2). */
  gap?: bigint;
  /** Distinguishes siblings that would otherwise be identical (goes into extraData). */
  salt?: number;
}

/** Runtime code that emits one LOG1 with `topic` and no data. */
export function loggerCode(topic: Uint8Array): Uint8Array {
  return Uint8Array.from([0x7f, ...topic, 0x60, 0x00, 0x60, 0x00, 0xa1, 0x00]);
}

/** A tree of valid blocks over one genesis. */
export class BlockTree {
  readonly genesis: TreeBlock;
  private readonly byHash = new Map<string, TreeBlock>();
  private readonly hosts = new EvmHostCache();

  private constructor(
    readonly config: ChainConfig,
    private readonly base: MemoryState,
    genesisHeader: Header,
    /** The genesis accounts as a chain config's `alloc` (what `BlockImporter.open` takes). */
    readonly alloc: GenesisAlloc,
  ) {
    this.genesis = {
      number: 0n,
      hash: headerHash(genesisHeader),
      header: genesisHeader,
      rlp: encodeBlock({ header: genesisHeader, transactions: [], ommers: [], withdrawals: [] }),
      layers: [],
      txHashes: [],
    };
    this.byHash.set(bytesToHex(this.genesis.hash), this.genesis);
  }

  /** A genesis with `alloc` (Clique-shaped header: 97-byte extraData, difficulty 1, Shanghai fields). */
  static create(config: ChainConfig, alloc: Array<[Uint8Array, AllocAccount]>): BlockTree {
    const state = new MemoryState();
    const root = applyAlloc(state, alloc);
    const header: Header = {
      parentHash: new Uint8Array(32),
      ommersHash: EMPTY_OMMERS_HASH,
      coinbase: new Uint8Array(20),
      stateRoot: root,
      transactionsRoot: EMPTY_TRIE_ROOT,
      receiptsRoot: EMPTY_TRIE_ROOT,
      logsBloom: new Uint8Array(256),
      difficulty: 1n,
      number: 0n,
      gasLimit: GAS_LIMIT,
      gasUsed: 0n,
      timestamp: 0n,
      extraData: new Uint8Array(97),
      mixHash: new Uint8Array(32),
      nonce: new Uint8Array(8),
      baseFeePerGas: 1_000_000_000n,
      withdrawalsRoot: EMPTY_TRIE_ROOT,
    };
    const genesisAlloc: GenesisAlloc = new Map();
    for (const [address, a] of alloc) {
      const storage = new Map<string, Uint8Array>((a.storage ?? []).map(([k, v]) => [Buffer.from(k).toString('hex'), v]));
      genesisAlloc.set(Buffer.from(address).toString('hex'), {
        address,
        nonce: a.nonce ?? 0n,
        balance: a.balance,
        code: a.code ?? new Uint8Array(0),
        storage,
      });
    }
    return new BlockTree(config, state, header, genesisAlloc);
  }

  /** A built block by hash. */
  get(hash: Uint8Array): TreeBlock {
    const b = this.byHash.get(bytesToHex(hash));
    if (!b) throw new Error(`block ${bytesToHex(hash)} is not in the tree`);
    return b;
  }

  /** The state after `block`. */
  stateAt(block: TreeBlock): BranchState {
    return new BranchState(this.base, block.layers);
  }

  /** Builds the child of `parent` described by `spec`. */
  async child(parent: TreeBlock, spec: ChildSpec = {}): Promise<TreeBlock> {
    const number = parent.number + 1n;
    const timestamp = parent.header.timestamp + (spec.gap ?? 2n);
    const fork = forkAt(this.config, Number(number), Number(timestamp));
    const state = this.stateAt(parent);
    const nonces = new Map<string, bigint>();
    const senders: Uint8Array[] = [];
    const sign = (key: Uint8Array, to: Uint8Array, value: bigint, gasLimit: bigint): Transaction => {
      const sender = addressFromPrivateKey(key);
      const from = bytesToHex(sender);
      const nonce = nonces.get(from) ?? state.getAccount(sender)?.nonce ?? 0n;
      nonces.set(from, nonce + 1n);
      senders.push(sender);
      return signTransaction(
        {
          type: 2,
          chainId: this.config.chainId,
          nonce,
          maxFeePerGas: 10_000_000_000n,
          maxPriorityFeePerGas: 1n,
          gasLimit,
          to,
          value,
          data: new Uint8Array(0),
        },
        key,
      );
    };
    const transactions = [
      ...(spec.transfers ?? []).map((t) => sign(t.key, t.to, t.value, 21_000n)),
      ...(spec.calls ?? []).map((c) => sign(c.key, c.to, 0n, 60_000n)),
    ];
    const extraData = new Uint8Array(97);
    extraData[0] = spec.salt ?? 0;
    const draft: Header = {
      ...this.genesis.header,
      parentHash: parent.hash,
      number,
      timestamp,
      difficulty: spec.difficulty ?? 2n,
      extraData,
      baseFeePerGas: expectedBaseFee(parent.header, forkAt(this.config, Number(parent.number), Number(parent.header.timestamp))),
      transactionsRoot: transactionsRoot(transactions),
    };
    const block: Block = { header: draft, transactions, ommers: [], withdrawals: [] };
    const exec = await runBlock(block, senders, {
      hosts: this.hosts,
      state,
      config: this.config,
      fork,
      blockHash: (n) => this.hashAt(parent, n),
    });
    const changes = exec.state.changes();
    const computer = new StateRootComputer(this.base.nodes, parent.header.stateRoot);
    const update = computer.apply(changes, (k) => exec.state.accountByKey(k));
    const bloom = new Uint8Array(256);
    for (const r of exec.receipts) for (let i = 0; i < 256; i++) bloom[i] |= r.logsBloom[i] as number;
    const header: Header = {
      ...draft,
      stateRoot: update.root,
      receiptsRoot: receiptsRoot(exec.receipts),
      logsBloom: bloom,
      gasUsed: exec.gasUsed,
    };
    const built: TreeBlock = {
      number,
      hash: headerHash(header),
      header,
      rlp: encodeBlock({ ...block, header }),
      layers: [...parent.layers, branchLayer(changes, update.encoded)],
      txHashes: transactions.map((t) => t.hash),
    };
    this.byHash.set(bytesToHex(built.hash), built);
    return built;
  }

  /** `count` children in a row on `parent` (each with `spec`, salted by `spec.salt`); returns them in order. */
  async chain(parent: TreeBlock, count: number, spec: ChildSpec = {}): Promise<TreeBlock[]> {
    const out: TreeBlock[] = [];
    for (let i = 0; i < count; i++) out.push(await this.child(out[out.length - 1] ?? parent, spec));
    return out;
  }

  /** Hash of `tip`'s ancestor at height `n`. */
  private hashAt(tip: TreeBlock, n: bigint): Uint8Array | undefined {
    for (let b: TreeBlock | undefined = tip; b; b = b.number === 0n ? undefined : this.byHash.get(bytesToHex(b.header.parentHash)))
      if (b.number === n) return b.hash;
    return undefined;
  }
}
