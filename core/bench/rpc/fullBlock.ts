/**
 * The full-block part of `bench:rpc`: the fullest block the end-to-end run produced (1,428 transfers fill 30 M gas)
 * fetched with full transactions and with its receipts. The first fetch is reported apart (our node may answer later
 * ones from its encoding cache), then the median of `runs` more.
 */
import { call, percentile, round3 } from './client.ts';
import type { Peer } from './peers.ts';
import { parseQuantity } from '../../primitives/hex.ts';

/** Timings of one fetch kind on one peer. */
export interface FetchStats {
  firstMs: number;
  p50Ms: number;
  bytes: number;
  errors: number;
}

/** Both fetches on one peer, for block `number` holding `txs` transactions. */
export interface FullBlock {
  number: number;
  txs: number;
  block: FetchStats;
  receipts: FetchStats;
}

/** The block in [from, to] with the most transactions. */
export async function fullestBlock(peer: Peer, from: number, to: number): Promise<{ number: number; txs: number }> {
  let best = { number: from, txs: -1 };
  for (let b = from; b <= to; b++) {
    const r = await call(peer.url, 'eth_getBlockTransactionCountByNumber', ['0x' + b.toString(16)]);
    const txs = r.code === undefined ? Number(parseQuantity(String(r.result))) : -1;
    if (txs > best.txs) best = { number: b, txs };
  }
  return best;
}

async function timeFetch(peer: Peer, method: string, params: unknown[], runs: number): Promise<FetchStats> {
  let errors = 0;
  let bytes = 0;
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const r = await call(peer.url, method, params);
    if (r.code !== undefined) errors++;
    else {
      times.push(r.ms);
      bytes = JSON.stringify(r.result).length;
    }
  }
  const firstMs = times.shift() ?? NaN;
  return {
    firstMs: round3(firstMs),
    p50Ms: round3(
      percentile(
        times.sort((a, b) => a - b),
        50,
      ),
    ),
    bytes,
    errors,
  };
}

/** Fetches block `number` (full transactions) and its receipts `runs` + 1 times each. */
export async function measureFullBlock(peer: Peer, number: number, txs: number, runs: number): Promise<FullBlock> {
  const tag = '0x' + number.toString(16);
  const block = await timeFetch(peer, 'eth_getBlockByNumber', [tag, true], runs);
  const receipts = await timeFetch(peer, 'eth_getBlockReceipts', [tag], runs);
  return { number, txs, block, receipts };
}
