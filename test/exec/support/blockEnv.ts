/** The block the EVM comparison tests run their messages in (ours against the library's loop). */
import type { Fork } from '../../../core/chain/forks.ts';
import type { BlockEnv } from '../../../core/exec/types.ts';
import { hexToBytes } from '../../../core/primitives/hex.ts';

/** A 20-byte address whose last bytes are `n`. */
export const addr = (n: number): Uint8Array => hexToBytes(`0x${n.toString(16).padStart(40, '0')}`);

/** Block 1 of chain 1337 on `fork`: coinbase 0xcb, gas limit 30M, base fee 7 wei, no block hashes. */
export const testBlockEnv = (fork: Fork, timestamp = 1_800_000_000n): BlockEnv => ({
  chainId: 1337n,
  fork,
  number: 1n,
  timestamp,
  coinbase: addr(0xcb),
  gasLimit: 30_000_000n,
  difficulty: 0n,
  prevRandao: new Uint8Array(32),
  baseFee: 7n,
  blockHash: () => undefined,
});
