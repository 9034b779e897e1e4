/**
 * Lenient readers for ethereum/tests JSON (quantities with leading zeros, odd-length hex), used only by the
 * conformance runners. Node input (RPC, genesis) goes through the strict parsers in core/primitives/hex.ts.
 */
import { looseHexToBytes, padLeft } from '../../primitives/hex.ts';
import type { AllocAccount } from '../../state/alloc.ts';

/** Prefix of a quantity wider than any transaction field ("0x:bigint 0x1000...01", as in ValueOverflowParis). */
const BIGINT_PREFIX = '0x:bigint ';

/** A vector quantity ("0x0de0b6b3a7640000", "0x00", "0x", "0x:bigint 0x...") as bigint. */
export function vBig(value: string | undefined): bigint {
  if (value === undefined || value === '0x' || value === '') return 0n;
  const text = value.startsWith(BIGINT_PREFIX) ? value.slice(BIGINT_PREFIX.length) : value;
  return BigInt(text.startsWith('0x') ? text : `0x${text}`);
}

/** Vector bytes. */
export function vBytes(value: string | undefined): Uint8Array {
  return value === undefined ? new Uint8Array(0) : looseHexToBytes(value);
}

/** A 20-byte address. */
export function vAddress(value: string): Uint8Array {
  return padLeft(looseHexToBytes(value), 20);
}

/** JSON of one pre/post account. */
export interface VectorAccount {
  balance: string;
  nonce: string;
  code: string;
  storage: Record<string, string>;
}

/** A vector's `pre` section as an allocation. */
export function allocOf(pre: Record<string, VectorAccount>): Array<[Uint8Array, AllocAccount]> {
  return Object.entries(pre).map(([address, acc]) => [
    vAddress(address),
    {
      balance: vBig(acc.balance),
      nonce: vBig(acc.nonce),
      code: vBytes(acc.code),
      storage: Object.entries(acc.storage ?? {}).map(([k, v]) => [padLeft(vBytes(k), 32), vBytes(v)] as const),
    },
  ]);
}
