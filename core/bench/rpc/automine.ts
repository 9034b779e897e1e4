/**
 * Automine as a test suite drives it (issue #15): one transfer at a time, `eth_sendRawTransaction` then
 * `eth_getTransactionReceipt` polled without pause until it exists, `n` in a row on each peer right after
 * `evm_setAutomine true`. Reports the p50/p90 of send-to-receipt, the total for all `n`, and the first sends apart
 * (a slow first block after switching automine on was seen before). The client is warmed first (`warmClient`) against
 * a throwaway local answerer, not the peer.
 */
import { devAccounts } from '../../node/dev/devChain.ts';
import { signTransaction } from '../../chain/transaction/sign.ts';
import { bytesToHex, hexToBytes, parseQuantity } from '../../primitives/hex.ts';
import { call, must, percentile, round3, warmClient } from './client.ts';
import type { Peer } from './peers.ts';

export interface AutomineStats {
  n: number;
  p50Ms: number;
  p90Ms: number;
  totalMs: number;
  /** Median of the first 5 sends after `evm_setAutomine true`. */
  first5P50Ms: number;
  /** Median of the others. */
  laterP50Ms: number;
}

const DEAD = hexToBytes('0x000000000000000000000000000000000000dead');

/** `n` signed 1-wei transfers to 0x…dead from `key`, nonces from `nonce0` (the bench's automine load). */
export function signedTransfers(key: Uint8Array, chainId: bigint, nonce0: bigint, n: number): string[] {
  return Array.from({ length: n }, (_, i) =>
    bytesToHex(
      signTransaction(
        {
          type: 2,
          chainId,
          nonce: nonce0 + BigInt(i),
          maxPriorityFeePerGas: 1_000_000_000n,
          maxFeePerGas: 200_000_000_000n,
          gasLimit: 21000n,
          to: DEAD,
          value: 1n,
          data: new Uint8Array(0),
        },
        key,
      ).raw,
    ),
  );
}

/** `n` sequential transfers from dev account `account`, each waited for. */
export async function measureAutomine(peer: Peer, chainId: bigint, n: number, account: number): Promise<AutomineStats> {
  const key = hexToBytes(devAccounts()[account].privateKey);
  const from = devAccounts()[account].address;
  const nonce0 = parseQuantity(String(await must(peer.url, 'eth_getTransactionCount', [from, 'latest'])));
  const raws = signedTransfers(key, chainId, nonce0, n);
  // The same warm client for each peer: the first sends time the peer, not this process's first fetches.
  await warmClient();
  await must(peer.url, 'evm_setAutomine', [true]);
  const times: number[] = [];
  const t0 = performance.now();
  for (const raw of raws) {
    const s = performance.now();
    const hash = await must(peer.url, 'eth_sendRawTransaction', [raw]);
    for (;;) {
      const r = await call(peer.url, 'eth_getTransactionReceipt', [hash]);
      if (r.code === undefined && r.result !== null) break;
    }
    times.push(performance.now() - s);
  }
  const totalMs = performance.now() - t0;
  await must(peer.url, 'evm_setAutomine', [false]);
  const sorted = [...times].sort((a, b) => a - b);
  const median = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  return {
    n,
    p50Ms: round3(percentile(sorted, 50)),
    p90Ms: round3(percentile(sorted, 90)),
    totalMs: Math.round(totalMs),
    first5P50Ms: round3(median(times.slice(0, 5))),
    laterP50Ms: round3(median(times.slice(5))),
  };
}
