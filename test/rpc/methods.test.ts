import { JsonRpcProvider, Transaction, getAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADDRESSES, ANSWER, EMITTER, KEYS, PING_TOPIC } from './support/chainBuilder.ts';
import { type Harness, startHarness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
type Obj = Record<string, unknown>;
const result = async <T = never>(method: string, params: unknown[] = []): Promise<T> => {
  const r = await h.call(method, params);
  if (r.error) throw new Error(`${method}: ${r.error.message}`);
  return r.result as T;
};

describe('eth blocks and transactions', () => {
  test('default: block JSON has geth fields and quantities without leading zeros', async () => {
    const b: Obj = await result('eth_getBlockByNumber', ['0x1', false]);
    const built = h.node.builder.blocks[1];
    expect(Object.keys(b).sort()).toEqual(
      [
        'baseFeePerGas',
        'difficulty',
        'extraData',
        'gasLimit',
        'gasUsed',
        'hash',
        'logsBloom',
        'miner',
        'mixHash',
        'nonce',
        'number',
        'parentHash',
        'receiptsRoot',
        'sha3Uncles',
        'size',
        'stateRoot',
        'timestamp',
        'transactions',
        'transactionsRoot',
        'uncles',
      ].sort(),
    );
    expect(b.hash).toBe(hex(built.block.header.hash));
    expect(b.number).toBe('0x1');
    expect(b.gasUsed).toBe('0xa410');
    expect(b.size).toBe('0x' + built.raw.length.toString(16));
    expect(b.transactions).toEqual(built.block.transactions.map((t) => hex(t.hash)));
    expect(b.uncles).toEqual([]);
    for (const v of Object.values(b))
      if (typeof v === 'string' && v.startsWith('0x0') && v.length > 3 && !/^0x0{2}/.test(v)) expect(v).not.toMatch(/^0x0[0-9a-f]$/);
    expect(await result('eth_getBlockByHash', [b.hash, false])).toEqual(b);
    expect(await result('eth_getBlockByNumber', ['0x9', false])).toBeNull();
    const latest: Obj = await result('eth_getBlockByNumber', ['latest', true]);
    expect(latest.number).toBe('0x3');
    expect((await result<Obj>('eth_getBlockByNumber', ['pending', false])).number).toBe('0x3');
    expect((await result<Obj>('eth_getBlockByNumber', ['earliest', false])).number).toBe('0x0');
    expect((await result<Obj>('eth_getBlockByNumber', ['safe', false])).number).toBe('0x2');
    expect((await result<Obj>('eth_getBlockByNumber', ['finalized', false])).number).toBe('0x1');
  });

  test('default: full transactions: legacy has chainId and v = 2*chainId+35+y; 1559 has yParity, accessList, effective gasPrice', async () => {
    const b: { transactions: Obj[]; baseFeePerGas: string } = await result('eth_getBlockByNumber', ['0x1', true]);
    const [legacy, dyn] = b.transactions;
    expect(legacy).toMatchObject({ type: '0x0', chainId: '0x539', transactionIndex: '0x0', blockNumber: '0x1', value: '0x3e8' });
    expect(['0xa95', '0xa96']).toContain(legacy.v);
    expect(legacy.yParity).toBeUndefined();
    expect(legacy.accessList).toBeUndefined();
    expect(dyn).toMatchObject({ type: '0x2', chainId: '0x539', accessList: [], maxPriorityFeePerGas: '0x2' });
    expect(['0x0', '0x1']).toContain(dyn.yParity);
    expect(BigInt(dyn.gasPrice as string)).toBe(BigInt(b.baseFeePerGas) + 2n);
    expect(await result('eth_getTransactionByHash', [dyn.hash])).toEqual(dyn);
    expect(await result('eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x1'])).toEqual(dyn);
    expect(await result('eth_getTransactionByBlockHashAndIndex', [legacy.blockHash, '0x0'])).toEqual(legacy);
    expect(await result('eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x5'])).toBeNull();
    expect(await result('eth_getBlockTransactionCountByNumber', ['0x1'])).toBe('0x2');
    expect(await result('eth_getBlockTransactionCountByHash', [legacy.blockHash])).toBe('0x2');
    expect(await result('eth_getUncleCountByBlockNumber', ['0x1'])).toBe('0x0');
    expect(await result('eth_getUncleByBlockNumberAndIndex', ['0x1', '0x0'])).toBeNull();
  });

  test('default: receipts and logs', async () => {
    const receipts: Obj[] = await result('eth_getBlockReceipts', ['0x2']);
    expect(receipts.map((r) => r.status)).toEqual(['0x1', '0x0']);
    const [emit] = receipts;
    expect(emit).toMatchObject({
      type: '0x2',
      contractAddress: null,
      to: hex(EMITTER),
      from: hex(ADDRESSES[0]),
      transactionIndex: '0x0',
      blockNumber: '0x2',
    });
    const logs = emit.logs as Obj[];
    expect(logs).toEqual([
      {
        address: hex(EMITTER),
        topics: [hex(PING_TOPIC)],
        data: '0x' + '00'.repeat(31) + '2a',
        blockNumber: '0x2',
        transactionHash: emit.transactionHash,
        transactionIndex: '0x0',
        blockHash: emit.blockHash,
        logIndex: '0x0',
        removed: false,
      },
    ]);
    expect(await result('eth_getTransactionReceipt', [emit.transactionHash])).toEqual(emit);
    expect(await result('eth_getTransactionReceipt', ['0x' + '00'.repeat(32)])).toBeNull();
    const all: Obj[] = await result('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [hex(PING_TOPIC)] }]);
    expect(all.map((l) => l.blockNumber)).toEqual(['0x2', '0x3']);
    expect(await result('eth_getLogs', [{ fromBlock: '0x0', address: hex(ADDRESSES[0]) }])).toEqual([]);
    expect(await result('eth_getLogs', [{ blockHash: emit.blockHash }])).toEqual(logs);
    expect((await h.call('eth_getLogs', [{ blockHash: emit.blockHash, fromBlock: '0x1' }])).error?.message).toBe(
      'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
    );
  });

  test('behavior: second block fetch is served from the encoding cache', async () => {
    const before = h.server.services.cache.entries;
    await result('eth_getBlockByNumber', ['0x2', true]);
    const after = h.server.services.cache.entries;
    const again = await h.post({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x2', true] });
    expect(after).toBe(before + 1);
    expect(h.server.services.cache.entries).toBe(after);
    expect((again.json as { result: Obj }).result.number).toBe('0x2');
  });
});

test('behavior: prime() fills the cache with both block forms and the receipts; readers then hit it', async () => {
  const built = h.node.builder.blocks[2];
  h.server.services.cache.clear();
  h.server.prime(built.block, built.receipts);
  expect(h.server.services.cache.entries).toBe(3);
  const block: Obj = await result('eth_getBlockByNumber', ['0x2', true]);
  const receipts: Obj[] = await result('eth_getBlockReceipts', ['0x2']);
  expect([block.hash, receipts.length, h.server.services.cache.entries]).toEqual([hex(built.block.header.hash), 2, 3]);
});

describe('state, execution, fees', () => {
  test('default: balances, nonces, code, storage, proofs at blocks (number, tag, EIP-1898)', async () => {
    const a1 = hex(ADDRESSES[1]);
    const b1 = BigInt(await result('eth_getBalance', [a1, '0x1']));
    const b0 = BigInt(await result('eth_getBalance', [a1, '0x0']));
    expect(b0).toBe(10n ** 24n);
    expect(b1).toBeGreaterThan(b0 - 10n ** 18n);
    const hash = (await result<Obj>('eth_getBlockByNumber', ['0x1', false])).hash;
    expect(await result('eth_getBalance', [a1, { blockHash: hash }])).toBe('0x' + b1.toString(16));
    expect(await result('eth_getBalance', [a1, { blockNumber: '0x1' }])).toBe('0x' + b1.toString(16));
    expect(await result('eth_getTransactionCount', [hex(ADDRESSES[0]), 'latest'])).toBe('0x2');
    expect(await result('eth_getCode', [hex(ANSWER), 'latest'])).toBe('0x602a60005260206000f3');
    expect(await result('eth_getStorageAt', [hex(ANSWER), '0x0', 'latest'])).toBe('0x' + '00'.repeat(32));
    const proof: Obj = await result('eth_getProof', [hex(ANSWER), ['0x01'], 'latest']);
    expect(proof).toMatchObject({
      address: hex(ANSWER),
      balance: '0x0',
      nonce: '0x0',
      storageProof: [{ key: '0x01', value: '0x0', proof: [] }],
    });
    expect((await h.call('eth_getBalance', [a1, { blockHash: '0x' + '11'.repeat(32) }])).error?.message).toBe('header for hash not found');
  });

  test('default: eth_call, estimateGas, createAccessList', async () => {
    expect(await result('eth_call', [{ to: hex(ANSWER) }, 'latest'])).toBe('0x' + '00'.repeat(31) + '2a');
    expect(await result('eth_call', [{ to: hex(ANSWER), input: '0x', data: '0x' }])).toBe('0x' + '00'.repeat(31) + '2a');
    expect((await h.call('eth_call', [{ to: hex(ANSWER), input: '0x01', data: '0x02' }])).error?.code).toBe(-32000);
    expect(BigInt(await result('eth_estimateGas', [{ to: hex(ANSWER) }]))).toBeGreaterThan(21_000n);
    expect(await result('eth_createAccessList', [{ to: hex(ADDRESSES[1]) }])).toEqual({ accessList: [], gasUsed: '0x5208' });
  });

  test('default: gas price, priority fee, fee history', async () => {
    const head: Obj = await result('eth_getBlockByNumber', ['latest', false]);
    expect(BigInt(await result('eth_gasPrice'))).toBe(BigInt(head.baseFeePerGas as string) + 10n ** 9n);
    expect(await result('eth_maxPriorityFeePerGas')).toBe('0x3b9aca00');
    const fh: Obj = await result('eth_feeHistory', ['0x2', 'latest', [50, 100]]);
    expect(fh.oldestBlock).toBe('0x2');
    expect((fh.baseFeePerGas as string[]).length).toBe(3);
    expect((fh.gasUsedRatio as number[]).length).toBe(2);
    expect(fh.reward).toEqual([
      ['0x2', '0x2'],
      ['0x1', '0x1'],
    ]);
    expect(await result('eth_feeHistory', [2, 'latest'])).toMatchObject({ oldestBlock: '0x2' });
    expect(await result('eth_feeHistory', ['0x0', 'latest'])).toEqual({ oldestBlock: '0x0' });
    expect((await h.call('eth_feeHistory', ['0x1', 'latest', [60, 10]])).error?.code).toBe(-32000);
  });

  test('default: chain, net, web3, txpool, debug', async () => {
    expect(await result('eth_chainId')).toBe('0x539');
    expect(await result('net_version')).toBe('1337');
    expect(await result('net_listening')).toBe(true);
    expect(await result('net_peerCount')).toBe('0x0');
    expect(await result('eth_syncing')).toBe(false);
    expect(await result('eth_accounts')).toEqual([]);
    expect(await result('web3_sha3', ['0x'])).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(await result('web3_clientVersion')).toBe('xone');
    const built = h.node.builder.blocks[1];
    expect(await result('debug_getRawBlock', ['0x1'])).toBe(hex(built.raw));
    expect(await result('debug_getRawHeader', ['0x1'])).toBe(hex(built.rawHeader));
    expect(await result('debug_getRawReceipts', ['0x1'])).toEqual(built.rawReceipts.map(hex));
    expect(await result('debug_getRawTransaction', [hex(built.block.transactions[0].hash)])).toBe(hex(built.rawTxs[0]));
    expect(await result('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' });
  });

  test('behavior: sendRawTransaction enters the pool; pending nonce, pending tx lookup, txpool content and filters see it', async () => {
    const pendingFilter: string = await result('eth_newPendingTransactionFilter');
    const t = Transaction.from({
      type: 2,
      chainId: 1337n,
      nonce: 2,
      gasLimit: 21000n,
      to: hex(ADDRESSES[2]),
      value: 7n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    });
    t.signature = KEYS[1].sign(t.unsignedHash);
    const hash: string = await result('eth_sendRawTransaction', [t.serialized]);
    expect(hash).toBe(t.hash);
    expect(await result('eth_getTransactionCount', [hex(ADDRESSES[1]), 'pending'])).toBe('0x3');
    const pending: Obj = await result('eth_getTransactionByHash', [hash]);
    expect(pending).toMatchObject({ blockHash: null, blockNumber: null, transactionIndex: null, gasPrice: '0x2540be400', nonce: '0x2' });
    expect(await result('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    const content: { pending: Record<string, Record<string, Obj>> } = await result('txpool_content');
    expect(content.pending[getAddress(hex(ADDRESSES[1]))]['2'].hash).toBe(hash);
    expect(await result('eth_getFilterChanges', [pendingFilter])).toEqual([hash]);
    expect(await result('eth_getFilterChanges', [pendingFilter])).toEqual([]);
    const low = Transaction.from({ type: 0, chainId: 1337n, nonce: 0, gasLimit: 21000n, to: hex(ADDRESSES[2]), gasPrice: 10n ** 10n });
    low.signature = KEYS[1].sign(low.unsignedHash);
    expect((await h.call('eth_sendRawTransaction', [low.serialized])).error?.message).toMatch(/^nonce too low: /);
  });

  test('behavior: block and log filters collect new heads until polled; uninstall; expiry after 5 minutes of silence', async () => {
    const blockFilter: string = await result('eth_newBlockFilter');
    const logFilter: string = await result('eth_newFilter', [{ address: hex(EMITTER), fromBlock: '0x0' }]);
    const b = await h.node.produce([{ from: 0, to: EMITTER }]);
    expect(await result('eth_getFilterChanges', [blockFilter])).toEqual([hex(b.block.header.hash)]);
    const logs: Obj[] = await result('eth_getFilterChanges', [logFilter]);
    expect(logs.map((l) => l.blockNumber)).toEqual(['0x' + b.block.header.number.toString(16)]);
    expect((await result<Obj[]>('eth_getFilterLogs', [logFilter])).length).toBe(3);
    expect(await result('eth_uninstallFilter', [blockFilter])).toBe(true);
    expect(await result('eth_uninstallFilter', [blockFilter])).toBe(false);
    let now = 1_000_000;
    const clocked = await startHarness({}, { now: () => now });
    const f: string = (await clocked.call('eth_newBlockFilter')).result as string;
    now += 4 * 60_000;
    expect((await clocked.call('eth_getFilterChanges', [f])).result).toEqual([]);
    now += 5 * 60_000 + 1;
    expect((await clocked.call('eth_getFilterChanges', [f])).error).toEqual({ code: -32000, message: 'filter not found' });
    await clocked.close();
  });
});

describe('real client', () => {
  test('behavior: ethers JsonRpcProvider reads blocks, transactions, receipts, balances and call results', async () => {
    const provider = new JsonRpcProvider(h.url, 1337, { staticNetwork: true, batchMaxCount: 1 });
    try {
      expect(await provider.getBlockNumber()).toBeGreaterThanOrEqual(3);
      const block = await provider.getBlock(1, true);
      expect(block?.prefetchedTransactions.map((t) => t.type)).toEqual([0, 2]);
      const tx = block!.prefetchedTransactions[0];
      expect(tx.from.toLowerCase()).toBe(hex(ADDRESSES[0]));
      const fetched = await provider.getTransaction(tx.hash);
      expect(fetched?.hash).toBe(tx.hash);
      const receipt = await provider.getTransactionReceipt(tx.hash);
      expect(receipt?.status).toBe(1);
      expect(await provider.call({ to: hex(ANSWER) })).toBe('0x' + '00'.repeat(31) + '2a');
      expect(await provider.getBalance(hex(ADDRESSES[2]), 0)).toBe(10n ** 24n);
      const fee = await provider.getFeeData();
      expect(fee.maxPriorityFeePerGas).toBe(10n ** 9n);
    } finally {
      provider.destroy();
    }
  });
});
