/**
 * `/metrics` of a running `xone run --dev` child process: served next to JSON-RPC on the same port, and the node's
 * own series (head, production counters, commit latency, tx pool sizes, durability) move when a block is sealed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devAccounts } from '../../core/node/dev/devChain.ts';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { sendDevTransfer } from './support/devTransfer.ts';
import { rpc, scrape } from './support/rpcCall.ts';

let node: DevNode;
beforeAll(async () => {
  node = await startDevNode();
});
afterAll(async () => {
  await node?.stop();
});

describe('node /metrics', () => {
  it('default: GET /metrics answers prom-client text with process metrics, and JSON-RPC still works on the same port', async () => {
    const res = await fetch(`${node.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('# TYPE xone_head_number gauge');
    expect(text).toContain('xone_process_resident_memory_bytes');
    expect((await rpc(node.url, 'eth_chainId')).result).toBe('0x539');
  });

  it('behavior: a sealed block with a transfer moves head, production counters, commit latency, pool sizes; store stays durable', async () => {
    // Manual mining: the pool holds the transfer until evm_mine, so the gauges can be read in both states. The dev
    // node mines in Clique slots, and evm_setAutomine false keeps interval mining (as anvil): a slot between the send
    // and the scrape (a loaded host) would seal the transfer, so interval mining is stopped too.
    expect((await rpc(node.url, 'evm_setAutomine', [false])).error).toBeUndefined();
    expect((await rpc(node.url, 'evm_setIntervalMining', [0])).error).toBeUndefined();
    const nonce = Number((await rpc(node.url, 'eth_getTransactionCount', [devAccounts(1)[0].address, 'latest'])).result);
    const before = await scrape(node.url);
    expect(before.get('xone_store_durable')).toBe(1);
    expect((await sendDevTransfer(node.url, nonce)).error).toBeUndefined();
    expect((await sendDevTransfer(node.url, nonce + 5)).error).toBeUndefined(); // a nonce gap: stays queued
    const pooled = await scrape(node.url);
    expect(pooled.get('xone_txpool_pending')).toBe(1);
    expect(pooled.get('xone_txpool_queued')).toBe(1);

    expect((await rpc(node.url, 'evm_mine')).error).toBeUndefined();
    const after = await scrape(node.url);
    const head = Number((await rpc(node.url, 'eth_blockNumber')).result);
    expect(after.get('xone_head_number')).toBe(head);
    expect(head).toBeGreaterThan(before.get('xone_head_number') ?? -1);
    expect((after.get('xone_produce_blocks_total') ?? 0) - (before.get('xone_produce_blocks_total') ?? 0)).toBe(
      head - (before.get('xone_head_number') ?? 0),
    );
    expect((after.get('xone_produce_txs_total') ?? 0) - (before.get('xone_produce_txs_total') ?? 0)).toBe(1);
    expect((after.get('xone_produce_gas_total') ?? 0) - (before.get('xone_produce_gas_total') ?? 0)).toBe(21_000);
    expect(after.get('xone_store_commit_seconds_count')).toBeGreaterThan(before.get('xone_store_commit_seconds_count') ?? 0);
    expect(after.get('xone_txpool_pending')).toBe(0);
    expect(after.get('xone_txpool_queued')).toBe(1);
    expect(after.get('xone_store_durable')).toBe(1);
  });
});
