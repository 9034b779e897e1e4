/**
 * Header and block JSON as geth's RPCMarshalHeader/RPCMarshalBlock (keys in geth's alphabetical map order, optional
 * fork fields only when the header has them). Blocks are encoded once to text and cached (see cache.ts).
 */
import { type BlockData, type HeaderData } from './types.ts';
import { d, q } from './hex.ts';
import { encodeTransaction } from './transaction.ts';

/** The JSON object of a header (eth_getHeaderBy*, newHeads). */
export function encodeHeader(h: HeaderData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = q(h.baseFeePerGas);
  if (h.blobGasUsed !== undefined) out.blobGasUsed = q(h.blobGasUsed);
  out.difficulty = q(h.difficulty);
  if (h.excessBlobGas !== undefined) out.excessBlobGas = q(h.excessBlobGas);
  out.extraData = d(h.extraData);
  out.gasLimit = q(h.gasLimit);
  out.gasUsed = q(h.gasUsed);
  out.hash = d(h.hash);
  out.logsBloom = d(h.logsBloom);
  out.miner = d(h.coinbase);
  out.mixHash = d(h.mixHash);
  out.nonce = d(h.nonce);
  out.number = q(h.number);
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = d(h.parentBeaconBlockRoot);
  out.parentHash = d(h.parentHash);
  out.receiptsRoot = d(h.receiptsRoot);
  if (h.requestsHash !== undefined) out.requestsHash = d(h.requestsHash);
  out.sha3Uncles = d(h.uncleHash);
  out.stateRoot = d(h.stateRoot);
  out.timestamp = q(h.timestamp);
  out.transactionsRoot = d(h.transactionsRoot);
  if (h.withdrawalsRoot !== undefined) out.withdrawalsRoot = d(h.withdrawalsRoot);
  return out;
}

/** The JSON object of a block; `fullTx` puts whole transactions instead of hashes. */
export function encodeBlock(b: BlockData, fullTx: boolean): Record<string, unknown> {
  const h = b.header;
  const out = encodeHeader(h);
  out.size = q(b.size);
  if (b.totalDifficulty !== undefined) out.totalDifficulty = q(b.totalDifficulty);
  out.transactions = fullTx
    ? b.transactions.map((tx, index) =>
        encodeTransaction(tx, { blockHash: h.hash, blockNumber: h.number, blockTimestamp: h.timestamp, index }),
      )
    : b.transactions.map((tx) => d(tx.hash));
  out.uncles = b.uncles.map(d);
  if (h.withdrawalsRoot !== undefined) {
    out.withdrawals = (b.withdrawals ?? []).map((w) => ({
      index: q(w.index),
      validatorIndex: q(w.validatorIndex),
      address: d(w.address),
      amount: q(w.amount),
    }));
  }
  return out;
}
