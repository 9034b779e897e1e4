/**
 * From chain types (core/chain) to the RPC's data shapes (core/rpc/encode/types.ts): the per-block context a receipt
 * or log needs (block hash/number, per-transaction gas used, effective gas price, contract address) is derived here.
 */
import type { Block } from '../chain/block/index.ts';
import type { Header } from '../chain/header/index.ts';
import type { Receipt } from '../chain/receipt/index.ts';
import { effectiveGasPrice, type Transaction } from '../chain/transaction/index.ts';
import { bigIntToBytes } from '../primitives/hex.ts';
import { keccak256 } from '../primitives/keccak.ts';
import { encodeRlp } from '../primitives/rlp.ts';
import type { BlockData, HeaderData, LogData, ReceiptData, TransactionData } from '../rpc/encode/types.ts';
import { GAS_PER_BLOB } from '../exec/header/blobGas.ts';

export function headerData(header: Header, hash: Uint8Array): HeaderData {
  return {
    hash,
    parentHash: header.parentHash,
    uncleHash: header.ommersHash,
    coinbase: header.coinbase,
    stateRoot: header.stateRoot,
    transactionsRoot: header.transactionsRoot,
    receiptsRoot: header.receiptsRoot,
    logsBloom: header.logsBloom,
    difficulty: header.difficulty,
    number: header.number,
    gasLimit: header.gasLimit,
    gasUsed: header.gasUsed,
    timestamp: header.timestamp,
    extraData: header.extraData,
    mixHash: header.mixHash,
    nonce: header.nonce,
    ...(header.baseFeePerGas !== undefined ? { baseFeePerGas: header.baseFeePerGas } : {}),
    ...(header.withdrawalsRoot !== undefined ? { withdrawalsRoot: header.withdrawalsRoot } : {}),
    ...(header.blobGasUsed !== undefined ? { blobGasUsed: header.blobGasUsed } : {}),
    ...(header.excessBlobGas !== undefined ? { excessBlobGas: header.excessBlobGas } : {}),
    ...(header.parentBeaconBlockRoot !== undefined ? { parentBeaconBlockRoot: header.parentBeaconBlockRoot } : {}),
    ...(header.requestsHash !== undefined ? { requestsHash: header.requestsHash } : {}),
  };
}

/** The RPC shape of `tx`; `minedIn` (its block's header) adds what it paid per gas there. */
export function transactionData(tx: Transaction, from: Uint8Array, minedIn?: Pick<Header, 'baseFeePerGas'>): TransactionData {
  const data: TransactionData = {
    type: tx.type,
    hash: tx.hash,
    from,
    to: tx.to ?? null,
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    gasPrice: tx.gasPrice,
    value: tx.value,
    data: tx.data,
    v: tx.v,
    r: tx.r,
    s: tx.s,
  };
  if (tx.chainId !== undefined) data.chainId = tx.chainId;
  if (tx.type !== 0) data.accessList = tx.accessList;
  if (tx.type >= 2) {
    data.maxFeePerGas = tx.maxFeePerGas;
    data.maxPriorityFeePerGas = tx.maxPriorityFeePerGas;
  }
  if (tx.type === 3) {
    data.maxFeePerBlobGas = tx.maxFeePerBlobGas;
    data.blobVersionedHashes = tx.blobVersionedHashes;
  }
  if (tx.type === 4) data.authorizationList = tx.authorizationList;
  if (minedIn !== undefined) data.effectiveGasPrice = effectiveGasPrice(tx, minedIn.baseFeePerGas);
  return data;
}

/** keccak256(RLP([sender, nonce]))[12:]: the address a create transaction deploys to. */
export function createdAddress(sender: Uint8Array, nonce: bigint): Uint8Array {
  return keccak256(encodeRlp([sender, bigIntToBytes(nonce)])).subarray(12);
}

export function blockData(
  block: Block,
  hash: Uint8Array,
  senders: readonly Uint8Array[],
  size: number,
  ommerHashes: Uint8Array[],
): BlockData {
  return {
    header: headerData(block.header, hash),
    transactions: block.transactions.map((tx, i) => transactionData(tx, senders[i], block.header)),
    uncles: ommerHashes,
    ...(block.withdrawals ? { withdrawals: block.withdrawals.map((w) => ({ ...w })) } : {}),
    size: BigInt(size),
  };
}

/**
 * Receipts with their context, and the block's logs with block-wide log indexes. `blobGasPrice` is the block's blob base fee (Cancun on): blob transactions' receipts
 * carry it with their blob gas, as geth's do.
 */
export function receiptsData(
  block: Block,
  hash: Uint8Array,
  senders: readonly Uint8Array[],
  receipts: readonly Receipt[],
  blobGasPrice?: bigint,
): ReceiptData[] {
  let previousGas = 0n;
  let logIndex = 0;
  return receipts.map((r, i) => {
    const tx = block.transactions[i];
    const logs: LogData[] = r.logs.map((l) => ({
      address: l.address,
      topics: l.topics,
      data: l.data,
      blockNumber: block.header.number,
      blockHash: hash,
      blockTimestamp: block.header.timestamp,
      transactionHash: tx.hash,
      transactionIndex: i,
      logIndex: logIndex++,
      removed: false,
    }));
    const data: ReceiptData = {
      type: r.type,
      cumulativeGasUsed: r.cumulativeGasUsed,
      gasUsed: r.cumulativeGasUsed - previousGas,
      effectiveGasPrice: effectiveGasPrice(tx, block.header.baseFeePerGas),
      logsBloom: r.logsBloom,
      logs,
      transactionHash: tx.hash,
      transactionIndex: i,
      blockHash: hash,
      blockNumber: block.header.number,
      blockTimestamp: block.header.timestamp,
      from: senders[i],
      to: tx.to ?? null,
      contractAddress: tx.to === undefined ? createdAddress(senders[i], tx.nonce) : null,
    };
    if (r.status !== undefined) data.status = r.status;
    if (tx.type === 3 && blobGasPrice !== undefined) {
      data.blobGasUsed = BigInt(tx.blobVersionedHashes?.length ?? 0) * GAS_PER_BLOB;
      data.blobGasPrice = blobGasPrice;
    }
    if (r.postState !== undefined) data.root = r.postState;
    previousGas = r.cumulativeGasUsed;
    return data;
  });
}
