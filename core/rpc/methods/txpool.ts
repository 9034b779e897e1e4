/**
 * The txpool_ namespace as geth: status counts, content (sender → nonce → tx JSON) and inspect (sender → nonce →
 * "to: value wei + gas gas × price wei"). Absent when the node has no pool.
 */
import { type TransactionData } from '../encode/types.ts';
import { encodeTransaction } from '../encode/transaction.ts';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';

function bySender<T>(txs: TransactionData[], f: (tx: TransactionData) => T): Record<string, Record<string, T>> {
  const out: Record<string, Record<string, T>> = {};
  for (const tx of txs) (out[checksumAddress(tx.from)] ??= {})[tx.nonce.toString(10)] = f(tx);
  return out;
}

/** EIP-55 mixed-case address, as geth keys txpool maps (common.Address.Hex()). */
function checksumAddress(a: Uint8Array): string {
  const lower = bytesToHex(a).slice(2);
  const digest = bytesToHex(keccak256(new TextEncoder().encode(lower))).slice(2);
  let out = '0x';
  for (let i = 0; i < lower.length; i++) out += parseInt(digest[i], 16) >= 8 ? lower[i].toUpperCase() : lower[i];
  return out;
}

const inspect = (tx: TransactionData): string => {
  const to = tx.to ? checksumAddress(tx.to) : 'contract creation';
  const price = tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
  return `${to}: ${tx.value} wei + ${tx.gasLimit} gas × ${price} wei`;
};

export function txpoolMethods(s: RpcServices): MethodTable {
  const pool = s.deps.txpool;
  if (!pool) return {};
  return {
    txpool_status: method([], () => {
      const st = pool.status();
      return { pending: toQuantity(st.pending), queued: toQuantity(st.queued) };
    }),
    txpool_content: method([], () => {
      const c = pool.content();
      return {
        pending: bySender(c.pending, (tx) => encodeTransaction(tx, null)),
        queued: bySender(c.queued, (tx) => encodeTransaction(tx, null)),
      };
    }),
    txpool_inspect: method([], () => {
      const c = pool.content();
      return { pending: bySender(c.pending, inspect), queued: bySender(c.queued, inspect) };
    }),
  };
}
