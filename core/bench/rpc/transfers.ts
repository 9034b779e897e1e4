/**
 * The end-to-end part of `bench:rpc`: pre-signed EIP-1559 transfers from the dev-mnemonic accounts (funded on both
 * peers: anvil's default accounts are the same mnemonic) sent as JSON-RPC batches with automine off, then `evm_mine`
 * until the last transaction's receipt exists.
 */
import { devAccounts } from '../../node/dev/devChain.ts';
import { signTransaction } from '../../chain/transaction/sign.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { bytesToHex, hexToBytes, parseQuantity } from '../../primitives/hex.ts';
import { batch, must } from './client.ts';
import type { Peer } from './peers.ts';

const encoder = new TextEncoder();

/** Raw transactions (hex) in send order, and the hash of the last one. */
export interface SignedSet {
  raws: string[];
  lastHash: string;
}

/**
 * Transfer i of a run: from `keys[i % keys.length]` with nonce floor(i / keys.length), 1 wei to a fresh address derived
 * from `tag` and i, EIP-1559 with a 100 gwei fee cap (above the base fee after the run's full blocks) and a 1 gwei tip.
 */
export function signDevTransfer(i: number, keys: readonly Uint8Array[], chainId: bigint, tag: string): ReturnType<typeof signTransaction> {
  return signTransaction(
    {
      type: 2,
      chainId,
      nonce: BigInt(Math.floor(i / keys.length)),
      maxPriorityFeePerGas: 1_000_000_000n,
      maxFeePerGas: 100_000_000_000n,
      gasLimit: 21000n,
      to: keccak256(encoder.encode(`${tag}-recipient-${i}`)).slice(12),
      value: 1n,
      data: new Uint8Array(0),
    },
    keys[i % keys.length],
  );
}

/**
 * `n` transfers, transaction i from dev account i % 20 with nonce floor(i / 20). The fee cap (100 gwei) stays above
 * the base fee after the full blocks the run produces, so no transaction waits on price.
 */
export function signTransfers(n: number, chainId: bigint): SignedSet {
  const keys = devAccounts().map((a) => hexToBytes(a.privateKey));
  const raws: string[] = [];
  let lastHash = '';
  for (let i = 0; i < n; i++) {
    const tx = signDevTransfer(i, keys, chainId, 'bench-rpc');
    raws.push(bytesToHex(tx.raw));
    lastHash = bytesToHex(tx.hash);
  }
  return { raws, lastHash };
}

/** One peer's end-to-end figures. */
export interface EndToEnd {
  sent: number;
  accepted: number;
  sendErrors: Record<string, number>;
  submitMs: number;
  submitTxPerSec: number;
  mineCalls: number;
  totalMs: number;
  endToEndTxPerSec: number;
  minedTxs: number;
  firstBlock: number;
  lastBlock: number;
}

/** Sends `set` in batches of `batchSize` with automine off, then mines until the last receipt exists. */
export async function runEndToEnd(peer: Peer, set: SignedSet, batchSize: number, maxMineCalls = 1_000): Promise<EndToEnd> {
  await must(peer.url, 'evm_setAutomine', [false]);
  const startBlock = Number(parseQuantity(String(await must(peer.url, 'eth_blockNumber', []))));
  const sendErrors: Record<string, number> = {};
  let accepted = 0;
  const t0 = performance.now();
  for (let i = 0; i < set.raws.length; i += batchSize) {
    const codes = await batch(
      peer.url,
      'eth_sendRawTransaction',
      set.raws.slice(i, i + batchSize).map((r) => [r]),
    );
    for (const c of codes) {
      if (c === undefined) accepted++;
      else sendErrors[c] = (sendErrors[c] ?? 0) + 1;
    }
  }
  const submitMs = performance.now() - t0;
  let mineCalls = 0;
  while ((await must(peer.url, 'eth_getTransactionReceipt', [set.lastHash])) === null) {
    if (mineCalls >= maxMineCalls) break;
    await must(peer.url, 'evm_mine', []);
    mineCalls++;
  }
  const totalMs = performance.now() - t0;
  const lastBlock = Number(parseQuantity(String(await must(peer.url, 'eth_blockNumber', []))));
  let minedTxs = 0;
  for (let b = startBlock + 1; b <= lastBlock; b++) {
    minedTxs += Number(parseQuantity(String(await must(peer.url, 'eth_getBlockTransactionCountByNumber', ['0x' + b.toString(16)]))));
  }
  return {
    sent: set.raws.length,
    accepted,
    sendErrors,
    submitMs: Math.round(submitMs),
    submitTxPerSec: Math.round((set.raws.length / submitMs) * 1000),
    mineCalls,
    totalMs: Math.round(totalMs),
    endToEndTxPerSec: Math.round((minedTxs / totalMs) * 1000),
    minedTxs,
    firstBlock: startBlock + 1,
    lastBlock,
  };
}
