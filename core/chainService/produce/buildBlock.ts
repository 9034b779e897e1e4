/**
 * Builds the next block for the producer: header fields from the parent (number, base fee, gas limit, Shanghai's empty
 * withdrawals), the pool's transactions executed in order (a transaction the state no longer admits, e.g. a stale
 * nonce, is dropped and the rest re-run), then the transaction and receipt roots and the bloom from the result.
 * Nothing is written. The caller hands the execution to `BlockImporter.commitExecuted`, which folds the state changes
 * into the importer's open trie for the state root and commits through the importer's own store write, so each
 * transaction executes once on the producer (docs/decisions/0024-producer-executes-once.md); followers verify all.
 */
import { EMPTY_REQUESTS_HASH, transactionsRoot, type Block } from '../../chain/block/index.ts';
import { bloomUnion } from '../../chain/bloom.ts';
import { forkAt, isForkActive, type ChainConfig } from '../../chain/forks.ts';
import { EMPTY_BLOOM, EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT, type Header } from '../../chain/header/index.ts';
import { receiptsRoot } from '../../chain/receipt/index.ts';
import type { Transaction } from '../../chain/transaction/index.ts';
import { BlockInvalidError } from '../../exec/errors.ts';
import type { EvmHostCache } from '../../exec/evmHost.ts';
import { runBlock, type BlockExecution, type ExecuteBlockContext } from '../../exec/block/executeBlock.ts';
import { expectedBaseFee } from '../../exec/header/baseFee.ts';
import { expectedExcessBlobGas } from '../../exec/header/blobGas.ts';
import type { ParentInfo } from '../../exec/header/validateHeader.ts';
import type { StoreState } from '../../state/store/storeState.ts';
import { processCpuMs, type CpuClock } from '../../exec/cpuClock.ts';

export interface Candidate {
  tx: Transaction;
  sender: Uint8Array;
}

export interface BuildContext {
  config: ChainConfig;
  parent: ParentInfo;
  state: StoreState;
  hosts: EvmHostCache;
  blockHash(number: bigint): Uint8Array | undefined;
  /** Dev-only writes before the transactions (ExecuteBlockContext.preState); the importer must apply the same. */
  preState?: ExecuteBlockContext['preState'];
  /** Dev-only header fields chosen by the user (base fee, gas limit, coinbase). */
  devHeader?: { baseFeePerGas?: bigint; gasLimit?: bigint; coinbase?: Uint8Array };
  /** The CPU clock of `timings.cpu` (default `processCpuMs`). */
  cpuClock?: CpuClock;
}

export interface BuiltBlock {
  /** Unsealed, and without its state root: the commit fills the root on the importer's open trie, then the engine seals. */
  block: Block;
  senders: Uint8Array[];
  /** Transactions left out because executing them failed validity (stale nonce, funds gone). */
  dropped: Transaction[];
  /** The execution of exactly `block.transactions` on the head state: the commit folds its changes in, never re-runs it. */
  exec: BlockExecution;
  /** Milliseconds (wall and process CPU): execution (all attempts), then the transaction/receipt roots with the bloom. */
  timings: { executeMs: number; bodyRootsMs: number; cpu: { executeMs: number; bodyRootsMs: number } };
}

export async function buildBlock(candidates: readonly Candidate[], timestamp: bigint, ctx: BuildContext): Promise<BuiltBlock> {
  const parent = ctx.parent.header;
  const number = parent.number + 1n;
  const fork = forkAt(ctx.config, Number(number), Number(timestamp));
  const header: Header = {
    parentHash: ctx.parent.hash,
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: new Uint8Array(20),
    stateRoot: EMPTY_TRIE_ROOT,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: EMPTY_BLOOM,
    difficulty: 2n,
    number,
    gasLimit: parent.gasLimit,
    gasUsed: 0n,
    timestamp,
    extraData: new Uint8Array(0),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
  };
  if (isForkActive(fork, 'London')) header.baseFeePerGas = expectedBaseFee(parent, ctx.parent.fork);
  const dev = ctx.devHeader;
  if (dev?.coinbase) header.coinbase = dev.coinbase;
  if (dev?.gasLimit !== undefined) header.gasLimit = dev.gasLimit;
  if (dev?.baseFeePerGas !== undefined && header.baseFeePerGas !== undefined) header.baseFeePerGas = dev.baseFeePerGas;
  if (isForkActive(fork, 'Shanghai')) header.withdrawalsRoot = EMPTY_TRIE_ROOT;
  if (isForkActive(fork, 'Cancun')) {
    header.blobGasUsed = 0n;
    header.excessBlobGas = expectedExcessBlobGas(parent, ctx.config, fork);
    // Decision 0033: no beacon chain precedes a Clique block; the EIP-4788 contract records a zero root.
    header.parentBeaconBlockRoot = new Uint8Array(32);
  }
  // Filled from the execution below; present so the block has Prague's shape while it runs.
  if (isForkActive(fork, 'Prague')) header.requestsHash = EMPTY_REQUESTS_HASH;

  const cpuNow = ctx.cpuClock ?? processCpuMs;
  const t0 = performance.now();
  const c0 = cpuNow();
  let included = [...candidates];
  const dropped: Transaction[] = [];
  for (;;) {
    const block: Block = {
      header,
      transactions: included.map((c) => c.tx),
      ommers: [],
      ...(header.withdrawalsRoot ? { withdrawals: [] } : {}),
    };
    const senders = included.map((c) => c.sender);
    let exec;
    try {
      exec = await runBlock(block, senders, {
        hosts: ctx.hosts,
        state: ctx.state,
        config: ctx.config,
        fork,
        blockHash: ctx.blockHash,
        ...(ctx.preState ? { preState: ctx.preState } : {}),
      });
    } catch (err) {
      const index = err instanceof BlockInvalidError ? (err.meta.txIndex as number | undefined) : undefined;
      if (index === undefined) throw err;
      dropped.push(included[index].tx);
      included = included.filter((_, i) => i !== index);
      continue;
    }
    const t1 = performance.now();
    const c1 = cpuNow();
    block.header = {
      ...header,
      transactionsRoot: transactionsRoot(block.transactions),
      receiptsRoot: receiptsRoot(exec.receipts),
      logsBloom: bloomUnion(exec.receipts.map((r) => r.logsBloom)),
      gasUsed: exec.gasUsed,
      ...(exec.blobGasUsed !== undefined ? { blobGasUsed: exec.blobGasUsed } : {}),
      ...(exec.requestsHash !== undefined ? { requestsHash: exec.requestsHash } : {}),
    };
    const t2 = performance.now();
    const c2 = cpuNow();
    return {
      block,
      senders,
      dropped,
      exec,
      timings: { executeMs: t1 - t0, bodyRootsMs: t2 - t1, cpu: { executeMs: c1 - c0, bodyRootsMs: c2 - c1 } },
    };
  }
}
