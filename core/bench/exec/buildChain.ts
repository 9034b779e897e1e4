/**
 * Builds a chain of full blocks in memory for the execution benchmark: runs each block's transactions with the
 * node's own executor on an in-memory state, then fills in gasUsed, bloom and every root, so the blocks are valid
 * for the import pipeline that is timed afterwards. Nothing here is timed.
 */
import { EMPTY_REQUESTS_HASH, encodeBlock, transactionsRoot, type Block } from '../../chain/block/index.ts';
import { forkAt, isForkActive, TIME_FORKS, type ChainConfig, type TimeFork } from '../../chain/forks.ts';
import { EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT, headerHash, type Header } from '../../chain/header/index.ts';
import { receiptsRoot } from '../../chain/receipt/index.ts';
import { recoverSender, type Transaction } from '../../chain/transaction/index.ts';
import { runBlock } from '../../exec/block/executeBlock.ts';
import { EvmHostCache } from '../../exec/evmHost.ts';
import { expectedBaseFee } from '../../exec/header/baseFee.ts';
import { expectedExcessBlobGas } from '../../exec/header/blobGas.ts';
import type { AllocAccount } from '../../state/alloc.ts';
import { applyAlloc } from '../../state/alloc.ts';
import { MemoryState } from '../../state/memoryState.ts';
import { StateRootComputer } from '../../state/stateRoot.ts';

/** A built chain: its genesis (for the importer) and the RLP of every block after it. */
export interface BuiltChain {
  genesisHeader: Header;
  blocks: Uint8Array[];
  txs: number;
  gas: bigint;
}

/**
 * Clique-style PoA config with every fork through `fork` from genesis: Shanghai (the target network's shape) unless a
 * newer one is asked for (bench:exec --fork, to compare the same workload across forks).
 */
export function benchConfig(chainId: bigint, fork: TimeFork = 'Shanghai'): ChainConfig {
  const forkTimes: ChainConfig['forkTimes'] = {};
  for (const f of TIME_FORKS.slice(0, TIME_FORKS.indexOf(fork) + 1)) forkTimes[f] = 0;
  return {
    chainId,
    forkBlocks: {
      Homestead: 0,
      TangerineWhistle: 0,
      SpuriousDragon: 0,
      Byzantium: 0,
      Constantinople: 0,
      Petersburg: 0,
      Istanbul: 0,
      MuirGlacier: 0,
      Berlin: 0,
      London: 0,
      ArrowGlacier: 0,
      GrayGlacier: 0,
    },
    forkTimes,
    clique: { period: 2, epoch: 30_000 },
  };
}

const GAS_LIMIT = 30_000_000n;

/** Builds the genesis from `alloc` and one block per entry of `blockTxs`. */
export async function buildChain(
  config: ChainConfig,
  alloc: Array<[Uint8Array, AllocAccount]>,
  blockTxs: Transaction[][],
): Promise<BuiltChain> {
  const state = new MemoryState();
  const genesisRoot = applyAlloc(state, alloc);
  const computer = new StateRootComputer(state.nodes, genesisRoot);
  const hosts = new EvmHostCache();
  const genesisHeader: Header = {
    parentHash: new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: new Uint8Array(20),
    stateRoot: genesisRoot,
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
    ...cancunFields(config, 0, 0),
  };
  let parent = genesisHeader;
  const blocks: Uint8Array[] = [];
  let txs = 0;
  let gas = 0n;
  for (const transactions of blockTxs) {
    const number = parent.number + 1n;
    const timestamp = parent.timestamp + 2n;
    const fork = forkAt(config, Number(number), Number(timestamp));
    const draft: Header = {
      ...genesisHeader,
      parentHash: headerHash(parent),
      number,
      timestamp,
      difficulty: 2n,
      baseFeePerGas: expectedBaseFee(parent, forkAt(config, Number(parent.number), Number(parent.timestamp))),
      transactionsRoot: transactionsRoot(transactions),
      ...(isForkActive(fork, 'Cancun') ? { excessBlobGas: expectedExcessBlobGas(parent, config, fork) } : {}),
    };
    const block: Block = { header: draft, transactions, ommers: [], withdrawals: [] };
    const exec = await runBlock(
      block,
      transactions.map((t) => recoverSender(t)),
      { hosts, state, config, fork, blockHash: () => undefined },
    );
    const changes = exec.state.changes();
    const { root, storageRoots } = computer.apply(changes, (k) => exec.state.accountByKey(k));
    state.applyChanges(changes, storageRoots);
    const bloom = new Uint8Array(256);
    for (const r of exec.receipts) for (let i = 0; i < 256; i++) bloom[i] |= r.logsBloom[i] as number;
    const header: Header = {
      ...draft,
      stateRoot: root,
      receiptsRoot: receiptsRoot(exec.receipts),
      logsBloom: bloom,
      gasUsed: exec.gasUsed,
      ...(exec.blobGasUsed !== undefined ? { blobGasUsed: exec.blobGasUsed } : {}),
      ...(exec.requestsHash !== undefined ? { requestsHash: exec.requestsHash } : {}),
    };
    blocks.push(encodeBlock({ ...block, header }));
    parent = header;
    txs += transactions.length;
    gas += exec.gasUsed;
  }
  return { genesisHeader, blocks, txs, gas };
}

/** The Cancun and Prague header fields of a block at (number, timestamp) without blobs or requests. */
function cancunFields(config: ChainConfig, number: number, timestamp: number): Partial<Header> {
  const fork = forkAt(config, number, timestamp);
  return {
    ...(isForkActive(fork, 'Cancun') ? { blobGasUsed: 0n, excessBlobGas: 0n, parentBeaconBlockRoot: new Uint8Array(32) } : {}),
    ...(isForkActive(fork, 'Prague') ? { requestsHash: EMPTY_REQUESTS_HASH } : {}),
  };
}
