/**
 * What the EVM comparison tests share: the block their messages run in and one way to run a message and observe it,
 * so ours and the library's loop are asked and read the same way.
 */
import type { EVM } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import type { Fork } from '../../../core/chain/forks.ts';
import type { BlockEnv } from '../../../core/exec/types.ts';
import { bytesToHex, hexToBytes } from '../../../core/primitives/hex.ts';

/** A 20-byte address whose last bytes are `n`. */
export const addr = (n: number): Uint8Array => hexToBytes(`0x${n.toString(16).padStart(40, '0')}`);

/** The account every test message comes from (the tests fund it). */
export const SENDER = addr(0xe0);

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

/** Everything observable about one message's run. */
export interface MessageOutcome {
  gas: bigint;
  refund: bigint | undefined;
  error: string | undefined;
  returnValue: string;
  logs: [string, string[], string][];
}

/** Runs one message from SENDER on `evm` (calldata as hex without 0x) and returns its outcome. */
export async function runMessage(
  evm: EVM,
  block: unknown,
  to: Uint8Array,
  data: string,
  gasLimit: bigint,
  blobVersionedHashes?: `0x${string}`[],
): Promise<MessageOutcome> {
  await evm.journal.cleanup();
  const caller = new Address(SENDER);
  const r = await evm.runCall({
    block: block as Parameters<EVM['runCall']>[0]['block'],
    caller,
    origin: caller,
    to: new Address(to),
    data: hexToBytes(`0x${data}`),
    gasLimit,
    gasPrice: 7n,
    ...(blobVersionedHashes ? { blobVersionedHashes } : {}),
  });
  const e = r.execResult;
  return {
    gas: e.executionGasUsed,
    refund: e.gasRefund,
    error: e.exceptionError?.error,
    returnValue: bytesToHex(e.returnValue),
    logs: (e.logs ?? []).map(([a, topics, d]) => [bytesToHex(a), topics.map(bytesToHex), bytesToHex(d)]),
  };
}
