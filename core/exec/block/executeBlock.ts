/**
 * Executes a block's transactions, rewards and withdrawals on a fresh overlay of the committed state and checks the
 * results the header commits to (gasUsed, logsBloom, receiptsRoot; the state root is checked by the importer, which
 * owns the trie). Nothing is written to the committed state here: the caller commits `changes` once everything
 * matched, so an invalid block leaves the state exactly as before.
 */
import { requestsHash, type Block } from '../../chain/block/index.ts';
import { blobParams, isForkActive, type ChainConfig, type Fork } from '../../chain/forks.ts';
import { logsBloom } from '../../chain/bloom.ts';
import { receiptsRoot, type Receipt } from '../../chain/receipt/index.ts';
import { bytesToHex, equalBytes } from '../../primitives/hex.ts';
import type { StateReader } from '../../state/interface.ts';
import { JournaledState } from '../../state/journaledState.ts';
import { applyTransaction } from '../applyTransaction.ts';
import { BlockInvalidError, mismatch, TxInvalidError } from '../errors.ts';
import type { EvmHostCache } from '../evmHost.ts';
import { credit } from '../fees.ts';
import { blockReward } from '../header/ethash.ts';
import { blobBaseFee, maxBlobGasPerBlock } from '../header/blobGas.ts';
import { blobGasOf } from '../applyTransaction.ts';
import type { BlockEnv } from '../types.ts';
import { collectRequests } from './requests.ts';
import { preBlockSystemCalls } from './systemCalls.ts';

/** The bloom of a receipt without logs, shared by all of them (read only: receipts are encoded, never edited). */
const ZERO_BLOOM = new Uint8Array(256);

/** 1 gwei: withdrawal amounts are in gwei (EIP-4895). */
const GWEI = 1_000_000_000n;

/** Inputs besides the block. */
export interface ExecuteBlockContext {
  hosts: EvmHostCache;
  state: StateReader;
  config: ChainConfig;
  fork: Fork;
  /** Hash of a canonical ancestor by number (BLOCKHASH). */
  blockHash(number: bigint): Uint8Array | undefined;
  /** Skip the EVM for plain transfers (default true). */
  fastPath?: boolean;
  /** Writes applied to the block's working state before its transactions (the dev chain's anvil_set* edits). */
  preState?: (state: JournaledState) => void;
}

/** What executing a block produced. */
export interface BlockExecution {
  state: JournaledState;
  receipts: Receipt[];
  gasUsed: bigint;
  /** Cancun on: blob gas the transactions used. */
  blobGasUsed?: bigint;
  /** Prague on: the EIP-7685 commitment to the block's requests. */
  requestsHash?: Uint8Array;
  /** Number of transactions that took the value-transfer fast path. */
  fastPathTxs: number;
}

/** The block environment of `block` under `fork`. */
export function blockEnvOf(block: Block, ctx: Pick<ExecuteBlockContext, 'config' | 'fork' | 'blockHash'>): BlockEnv {
  const h = block.header;
  const blob = blobParams(ctx.config, ctx.fork);
  return {
    ...(blob === undefined
      ? {}
      : { blobBaseFee: blobBaseFee(h.excessBlobGas ?? 0n, blob), maxBlobGas: maxBlobGasPerBlock(ctx.config, ctx.fork) }),
    chainId: ctx.config.chainId,
    fork: ctx.fork,
    number: h.number,
    timestamp: h.timestamp,
    coinbase: h.coinbase,
    gasLimit: h.gasLimit,
    difficulty: h.difficulty,
    prevRandao: h.mixHash,
    baseFee: h.baseFeePerGas,
    blockHash: (n) => (n < h.number && n + 256n >= h.number ? ctx.blockHash(n) : undefined),
  };
}

/** Runs `block` (with pre-recovered `senders`) and checks gasUsed, logsBloom and receiptsRoot against its header. */
export async function executeBlock(block: Block, senders: readonly Uint8Array[], ctx: ExecuteBlockContext): Promise<BlockExecution> {
  const exec = await runBlock(block, senders, ctx);
  checkResults(block, exec);
  return exec;
}

/**
 * Runs `block` without comparing anything with its header: the producer's path (it fills the header from the
 * result) and the first half of `executeBlock`. The header's gasUsed, bloom and roots are not read.
 */
export async function runBlock(block: Block, senders: readonly Uint8Array[], ctx: ExecuteBlockContext): Promise<BlockExecution> {
  const env = blockEnvOf(block, ctx);
  const state = new JournaledState(ctx.state);
  ctx.preState?.(state);
  const host = ctx.hosts.get(env.chainId, ctx.fork, state);
  const evmBlock = host.bind(state, env);
  const receipts: Receipt[] = [];
  let gasUsed = 0n;
  let blobGasUsed = 0n;
  let fastPathTxs = 0;
  await preBlockSystemCalls(host, evmBlock, state, ctx.fork, block.header);
  for (const [i, tx] of block.transactions.entries()) {
    const blobGas = blobGasOf(tx);
    if (blobGas > 0n && env.maxBlobGas !== undefined && blobGasUsed + blobGas > env.maxBlobGas) {
      throw new BlockInvalidError(
        'BLOCK_BAD_BLOB_GAS',
        `invalid block: transaction ${i} (${bytesToHex(tx.hash)}): blob gas ${blobGasUsed + blobGas} exceeds the block maximum ${env.maxBlobGas}`,
        { field: 'blobGasUsed', expected: `<= ${env.maxBlobGas}`, actual: String(blobGasUsed + blobGas), txIndex: i },
      );
    }
    let result;
    try {
      result = await applyTransaction(host, evmBlock, state, env, tx, senders[i] as Uint8Array, env.gasLimit - gasUsed, {
        noFastPath: ctx.fastPath === false,
      });
    } catch (err) {
      if (!(err instanceof TxInvalidError)) throw err;
      throw new BlockInvalidError('BLOCK_BAD_TX', `invalid block: transaction ${i} (${bytesToHex(tx.hash)}): ${err.message}`, {
        ...err.meta,
        txIndex: i,
        txCode: err.code,
      });
    }
    if (result.fastPath) fastPathTxs++;
    gasUsed += result.gasUsed;
    blobGasUsed += blobGas;
    receipts.push({
      type: tx.type,
      status: result.status,
      cumulativeGasUsed: gasUsed,
      logsBloom: result.logs.length === 0 ? ZERO_BLOOM : logsBloom(result.logs),
      logs: result.logs,
    });
  }
  applyRewards(state, env, block, ctx);
  if (block.withdrawals !== undefined) for (const w of block.withdrawals) credit(state, env, w.address, w.amount * GWEI);
  const requests = await collectRequests(host, evmBlock, state, ctx.config, ctx.fork, receipts);
  return {
    state,
    receipts,
    gasUsed,
    ...(isForkActive(ctx.fork, 'Cancun') ? { blobGasUsed } : {}),
    ...(requests === undefined ? {} : { requestsHash: requestsHash(requests) }),
    fastPathTxs,
  };
}

/** Proof-of-work block and ommer rewards; none under Clique or after the merge. */
function applyRewards(state: JournaledState, env: BlockEnv, block: Block, ctx: ExecuteBlockContext): void {
  if (ctx.config.clique !== undefined || isForkActive(ctx.fork, 'Paris')) return;
  const reward = blockReward(ctx.fork);
  for (const ommer of block.ommers) credit(state, env, ommer.coinbase, ((ommer.number + 8n - block.header.number) * reward) / 8n);
  credit(state, env, env.coinbase, reward + (reward / 32n) * BigInt(block.ommers.length));
}

function checkResults(block: Block, exec: BlockExecution): void {
  const { receipts, gasUsed } = exec;
  const h = block.header;
  if (gasUsed !== h.gasUsed) throw mismatch('BLOCK_BAD_GAS_USED', 'gasUsed', gasUsed, h.gasUsed);
  if (exec.blobGasUsed !== h.blobGasUsed)
    throw mismatch('BLOCK_BAD_BLOB_GAS', 'blobGasUsed', exec.blobGasUsed ?? 'none', h.blobGasUsed ?? 'none');
  const bloom = new Uint8Array(256);
  for (const r of receipts) {
    if (r.logsBloom === ZERO_BLOOM) continue;
    for (let i = 0; i < 256; i++) bloom[i] |= r.logsBloom[i] as number;
  }
  if (!equalBytes(bloom, h.logsBloom)) throw mismatch('BLOCK_BAD_LOGS_BLOOM', 'logsBloom', bytesToHex(bloom), bytesToHex(h.logsBloom));
  const root = receiptsRoot(receipts);
  if (!equalBytes(root, h.receiptsRoot))
    throw mismatch('BLOCK_BAD_RECEIPTS_ROOT', 'receiptsRoot', bytesToHex(root), bytesToHex(h.receiptsRoot));
  if (exec.requestsHash !== undefined || h.requestsHash !== undefined) {
    const ours = exec.requestsHash === undefined ? 'none' : bytesToHex(exec.requestsHash);
    const theirs = h.requestsHash === undefined ? 'none' : bytesToHex(h.requestsHash);
    if (ours !== theirs) throw mismatch('BLOCK_BAD_REQUESTS', 'requestsHash', ours, theirs);
  }
}
