/** Signing: turns the fields a sender chooses into a complete, encoded, hashed `Transaction`. */
import { defaultSecp256k1 } from '../../primitives/secp256k1/select.ts';
import type { Secp256k1Backend } from '../../primitives/secp256k1/types.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { encodeTransaction } from './codec.ts';
import { TxError } from './errors.ts';
import { signingHash } from './hash.ts';
import type { Transaction, UnsignedTransaction } from './types.ts';

/** Fills the derived fee fields and checks that the fields suit the type. */
function normalize(u: UnsignedTransaction): Transaction {
  let gasPrice: bigint;
  let maxPriorityFeePerGas: bigint;
  let maxFeePerGas: bigint;
  if (u.type >= 2) {
    if (u.maxFeePerGas === undefined || u.maxPriorityFeePerGas === undefined) {
      throw new TxError('TX_INCOMPLETE', `type ${u.type} transaction needs maxFeePerGas and maxPriorityFeePerGas`);
    }
    [gasPrice, maxPriorityFeePerGas, maxFeePerGas] = [u.maxFeePerGas, u.maxPriorityFeePerGas, u.maxFeePerGas];
  } else {
    if (u.gasPrice === undefined) throw new TxError('TX_INCOMPLETE', `type ${u.type} transaction needs gasPrice`);
    [gasPrice, maxPriorityFeePerGas, maxFeePerGas] = [u.gasPrice, u.gasPrice, u.gasPrice];
  }
  if (u.type !== 0 && u.chainId === undefined) throw new TxError('TX_INCOMPLETE', `type ${u.type} transaction needs a chainId`);
  const accessList = u.accessList ?? [];
  if (u.type === 0 && accessList.length > 0) throw new TxError('TX_INCOMPLETE', 'legacy transaction cannot carry an access list');
  if (u.type === 3 && (u.maxFeePerBlobGas === undefined || u.blobVersionedHashes === undefined)) {
    throw new TxError('TX_INCOMPLETE', 'blob transaction needs maxFeePerBlobGas and blobVersionedHashes');
  }
  if (u.type === 4 && u.authorizationList === undefined)
    throw new TxError('TX_INCOMPLETE', 'set-code transaction needs an authorizationList');
  const extra: Partial<Transaction> = {};
  if (u.type === 3) Object.assign(extra, { maxFeePerBlobGas: u.maxFeePerBlobGas, blobVersionedHashes: u.blobVersionedHashes });
  if (u.type === 4) extra.authorizationList = u.authorizationList;
  return {
    ...extra,
    type: u.type,
    chainId: u.chainId,
    nonce: u.nonce,
    gasPrice,
    maxPriorityFeePerGas,
    maxFeePerGas,
    gasLimit: u.gasLimit,
    to: u.to,
    value: u.value,
    data: u.data,
    accessList,
    v: 0n,
    r: 0n,
    s: 0n,
    raw: new Uint8Array(0),
    hash: new Uint8Array(0),
  };
}

/**
 * Signs with a 32-byte private key (RFC 6979, low s). Legacy transactions with a chainId get an EIP-155 v, without
 * one the pre-155 v = 27/28.
 */
export function signTransaction(
  unsigned: UnsignedTransaction,
  privateKey: Uint8Array,
  backend: Secp256k1Backend = defaultSecp256k1(),
): Transaction {
  const tx = normalize(unsigned);
  const sig = backend.sign(signingHash(tx), privateKey);
  const recovery = BigInt(sig.recovery);
  tx.v = tx.type !== 0 ? recovery : tx.chainId === undefined ? 27n + recovery : tx.chainId * 2n + 35n + recovery;
  tx.r = sig.r;
  tx.s = sig.s;
  tx.raw = encodeTransaction(tx);
  tx.hash = keccak256(tx.raw);
  return tx;
}

/**
 * A transaction from `sender` that nobody signed (the dev chain's impersonated accounts, anvil_impersonateAccount):
 * it carries a placeholder signature (s = 1, r = 2^160 + the sender, so that two senders' otherwise equal
 * transactions get different hashes) that passes the static range checks but recovers to no one. The sender travels
 * beside it (the pool's known sender, the block's stored senders); it must never reach a verifying node.
 */
export function impersonatedTransaction(unsigned: UnsignedTransaction, sender: Uint8Array): Transaction {
  const tx = normalize(unsigned);
  tx.r = (1n << 160n) | BigInt('0x' + (Buffer.from(sender).toString('hex') || '0'));
  tx.s = 1n;
  tx.v = tx.type !== 0 ? 0n : tx.chainId === undefined ? 27n : tx.chainId * 2n + 35n;
  tx.raw = encodeTransaction(tx);
  tx.hash = keccak256(tx.raw);
  return tx;
}

/** A transaction nobody signed (v = r = s = 0), hashed over those fields: the transactions of eth_simulateV1 blocks. */
export function unsignedTransaction(unsigned: UnsignedTransaction): Transaction {
  const tx = normalize(unsigned);
  tx.raw = encodeTransaction(tx);
  tx.hash = keccak256(tx.raw);
  return tx;
}
