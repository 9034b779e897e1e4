/**
 * The JSON-RPC methods on the real node (support/realNode.ts: XoneNode.start on a datadir, its chain thread, store
 * views and RPC server) over the fixture chain of support/fixtureChain.ts, built from real signed transactions.
 * Answers are checked against what was sent and against independent encoders (ethers, @ethereumjs/mpt).
 */
import { JsonRpcProvider, Transaction, getAddress, keccak256 } from 'ethers';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { devAccounts } from '../../core/node/dev/devChain.ts';
import { CLIENT_IDENTITY } from '../../core/version.ts';
import {
  ADDRESSES,
  ANSWER_CODE,
  EMITTER_CODE,
  type FixtureChain,
  PING_TOPIC,
  Sender,
  WALLETS,
  buildFixtureChain,
} from './support/fixtureChain.ts';
import { orderedRoot, splitRawBlock } from './support/encodings.ts';
import { type ProofJson, verifyEip1186 } from './support/proofCheck.ts';
import { type RealNode, startRealNode } from './support/realNode.ts';

type Obj = Record<string, unknown>;
/** What each dev account holds at genesis: 10,000 ETH. */
const DEV_BALANCE = 10_000n * 10n ** 18n;
type Receipt = { effectiveGasPrice: string; gasUsed: string; status: string; transactionHash: string; contractAddress: string | null };

/** The RPC clock: real time plus what a test adds (filter expiry is a matter of the clock). */
let clockOffsetMs = 0;
let h: RealNode;
let f: FixtureChain;
beforeAll(async () => {
  h = await startRealNode({ rpcClock: () => Date.now() + clockOffsetMs });
  f = await buildFixtureChain(h);
});
afterAll(() => h?.close());

const result = <T = never>(method: string, params: unknown[] = []): Promise<T> => h.result<T>(method, params);
const block = (n: string, full = false) => result<Obj>('eth_getBlockByNumber', [n, full]);
const sent = (n: number) => f.blocks.get(n) ?? [];
const hexN = (n: bigint | number) => '0x' + n.toString(16);

/** geth's eth_feeHistory reward: tips sorted, the tip at which the cumulative gas reaches p% of the block's gas. */
function rewards(receipts: Receipt[], baseFee: bigint, percentiles: number[]): string[] {
  const txs = receipts
    .map((r) => ({ tip: BigInt(r.effectiveGasPrice) - baseFee, gas: BigInt(r.gasUsed) }))
    .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
  const total = txs.reduce((s, t) => s + t.gas, 0n);
  return percentiles.map((p) => {
    const threshold = BigInt(Math.floor((Number(total) * p) / 100));
    let i = 0;
    let sum = txs[0].gas;
    while (sum < threshold && i < txs.length - 1) sum += txs[++i].gas;
    return hexN(txs[i].tip);
  });
}

describe('eth blocks and transactions', () => {
  test('default: block JSON has geth fields and quantities without leading zeros; tags resolve on one signer', async () => {
    const b = await block('0x2');
    expect(Object.keys(b).sort()).toEqual(
      [
        'baseFeePerGas',
        'blobGasUsed',
        'difficulty',
        'excessBlobGas',
        'extraData',
        'gasLimit',
        'gasUsed',
        'hash',
        'logsBloom',
        'miner',
        'mixHash',
        'nonce',
        'number',
        'parentBeaconBlockRoot',
        'parentHash',
        'receiptsRoot',
        'requestsHash',
        'sha3Uncles',
        'size',
        'stateRoot',
        'timestamp',
        'totalDifficulty',
        'transactions',
        'transactionsRoot',
        'uncles',
        'withdrawals',
        'withdrawalsRoot',
      ].sort(),
    );
    const rawHeader: string = await result('debug_getRawHeader', ['0x2']);
    expect(b.hash).toBe(keccak256(rawHeader));
    expect(b.number).toBe('0x2');
    expect(b.gasUsed).toBe('0xa410'); // two plain transfers, 21,000 each
    expect(b.size).toBe(hexN(((await result<string>('debug_getRawBlock', ['0x2'])).length - 2) / 2));
    expect(b.transactions).toEqual(sent(2).map((t) => t.hash));
    expect(b.uncles).toEqual([]);
    expect(b.withdrawals).toEqual([]);
    for (const v of Object.values(b))
      if (typeof v === 'string' && v.startsWith('0x0') && v.length > 3 && !/^0x0{2}/.test(v)) expect(v).not.toMatch(/^0x0[0-9a-f]$/);
    expect(await result('eth_getBlockByHash', [b.hash, false])).toEqual(b);
    expect(await block('0x9')).toBeNull();
    expect((await block('latest', true)).number).toBe('0x4');
    expect((await block('pending')).number).toBe('0x4');
    expect((await block('earliest')).number).toBe('0x0');
    // One Clique signer: safe and finalized are the head (docs/decisions/0011-rpc-block-tags-poa.md).
    expect((await block('safe')).number).toBe('0x4');
    expect((await block('finalized')).number).toBe('0x4');
    // Total difficulty: the sum of the in-turn difficulties (2 each) from genesis.
    expect(BigInt(b.totalDifficulty as string)).toBe(BigInt((await block('0x0')).difficulty as string) + 2n * 2n);
  });

  test('default: full transactions: legacy has chainId and v = 2*chainId+35+y; 1559 has yParity, accessList, effective gasPrice', async () => {
    const b = (await block('0x2', true)) as { transactions: Obj[]; baseFeePerGas: string; hash: string; timestamp: string };
    const [legacy, dyn] = b.transactions;
    expect([legacy.hash, dyn.hash]).toEqual(sent(2).map((t) => t.hash));
    expect(legacy).toMatchObject({
      type: '0x0',
      chainId: '0x539',
      transactionIndex: '0x0',
      blockNumber: '0x2',
      blockHash: b.hash,
      // geth 1.16's field on mined transactions, as the current execution-apis answers carry it.
      blockTimestamp: b.timestamp,
      value: '0x3e8',
      from: ADDRESSES[0],
      to: ADDRESSES[1],
      nonce: '0x0',
      input: '0x',
    });
    expect(['0xa95', '0xa96']).toContain(legacy.v);
    expect(legacy.yParity).toBeUndefined();
    expect(legacy.accessList).toBeUndefined();
    expect(dyn).toMatchObject({
      type: '0x2',
      chainId: '0x539',
      accessList: [],
      maxPriorityFeePerGas: '0x2',
      from: ADDRESSES[1],
      value: '0x5',
    });
    expect(['0x0', '0x1']).toContain(dyn.yParity);
    expect(BigInt(dyn.gasPrice as string)).toBe(BigInt(b.baseFeePerGas) + 2n);
    // The signature fields are those of the bytes sent.
    const signed = Transaction.from(sent(2)[1].raw);
    expect([dyn.r, dyn.s]).toEqual([signed.signature?.r, signed.signature?.s].map((x) => hexN(BigInt(x as string))));
    expect(await result('eth_getTransactionByHash', [dyn.hash])).toEqual(dyn);
    expect(await result('eth_getTransactionByBlockNumberAndIndex', ['0x2', '0x1'])).toEqual(dyn);
    expect(await result('eth_getTransactionByBlockHashAndIndex', [legacy.blockHash, '0x0'])).toEqual(legacy);
    expect(await result('eth_getTransactionByBlockNumberAndIndex', ['0x2', '0x5'])).toBeNull();
    expect(await result('eth_getBlockTransactionCountByNumber', ['0x2'])).toBe('0x2');
    expect(await result('eth_getBlockTransactionCountByHash', [legacy.blockHash])).toBe('0x2');
    expect(await result('eth_getUncleCountByBlockNumber', ['0x2'])).toBe('0x0');
    expect(await result('eth_getUncleByBlockNumberAndIndex', ['0x2', '0x0'])).toBeNull();
  });

  test('default: receipts and logs', async () => {
    const created: Receipt[] = await result('eth_getBlockReceipts', ['0x1']);
    expect(created.map((r) => r.contractAddress)).toEqual([f.emitter, f.reverter, f.answer, f.manyLogs]);
    const receipts: Obj[] = await result('eth_getBlockReceipts', ['0x3']);
    expect(receipts.map((r) => r.status)).toEqual(['0x1', '0x0']);
    expect(receipts.map((r) => r.transactionHash)).toEqual(sent(3).map((t) => t.hash));
    const [emit] = receipts;
    const b3 = await block('0x3');
    expect(emit).toMatchObject({
      type: '0x2',
      contractAddress: null,
      to: f.emitter,
      from: ADDRESSES[0],
      transactionIndex: '0x0',
      blockNumber: '0x3',
      blockHash: b3.hash,
    });
    const logs = emit.logs as Obj[];
    expect(logs).toEqual([
      {
        address: f.emitter,
        topics: [PING_TOPIC],
        data: '0x' + '00'.repeat(31) + '2a',
        blockNumber: '0x3',
        transactionHash: emit.transactionHash,
        transactionIndex: '0x0',
        blockHash: b3.hash,
        blockTimestamp: b3.timestamp,
        logIndex: '0x0',
        removed: false,
      },
    ]);
    expect((receipts[1].logs as unknown[]).length).toBe(0);
    expect(await result('eth_getTransactionReceipt', [emit.transactionHash])).toEqual(emit);
    expect(await result('eth_getTransactionReceipt', ['0x' + '00'.repeat(32)])).toBeNull();
    const all: Obj[] = await result('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [PING_TOPIC] }]);
    expect(all.map((l) => l.blockNumber)).toEqual(['0x3', '0x4']);
    expect(await result('eth_getLogs', [{ fromBlock: '0x0', address: ADDRESSES[0] }])).toEqual([]);
    expect(await result('eth_getLogs', [{ blockHash: emit.blockHash }])).toEqual(logs);
    expect((await h.call('eth_getLogs', [{ blockHash: emit.blockHash, fromBlock: '0x1' }])).error?.message).toBe(
      'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
    );
  });

  test('behavior: a second block fetch is served from the encoding cache', async () => {
    const cache = h.node.rpc.services.cache;
    cache.clear();
    const first = await block('0x2', true);
    const after = cache.entries;
    expect(after).toBe(1);
    expect(await block('0x2', true)).toEqual(first);
    expect(cache.entries).toBe(after);
  });
});

describe('state, execution, fees', () => {
  test('default: balances, nonces, code, storage, proofs at blocks (number, tag, EIP-1898)', async () => {
    const a1 = ADDRESSES[1];
    expect(BigInt(await result('eth_getBalance', [a1, '0x0']))).toBe(DEV_BALANCE);
    // Block 2: account 1 receives 1000 wei, sends 5 and pays for its transfer.
    const paid = ((await result<Receipt[]>('eth_getBlockReceipts', ['0x2'])) as Receipt[])[1];
    const b2 = BigInt(await result('eth_getBalance', [a1, '0x2']));
    expect(b2).toBe(DEV_BALANCE + 1000n - 5n - BigInt(paid.gasUsed) * BigInt(paid.effectiveGasPrice));
    const hash = (await block('0x2')).hash;
    expect(await result('eth_getBalance', [a1, { blockHash: hash }])).toBe(hexN(b2));
    expect(await result('eth_getBalance', [a1, { blockNumber: '0x2' }])).toBe(hexN(b2));
    expect(await result('eth_getTransactionCount', [ADDRESSES[0], 'latest'])).toBe('0x2');
    expect(await result('eth_getTransactionCount', [ADDRESSES[0], '0x2'])).toBe('0x1');
    expect(await result('eth_getCode', [f.answer, 'latest'])).toBe(ANSWER_CODE);
    expect(await result('eth_getCode', [f.answer, '0x0'])).toBe('0x');
    expect(await result('eth_getStorageAt', [f.answer, '0x0', 'latest'])).toBe('0x' + '00'.repeat(32));
    // The emitter stores the number of the block that called it last.
    expect(await result('eth_getStorageAt', [f.emitter, '0x0', 'latest'])).toBe('0x' + '00'.repeat(31) + '04');
    expect(await result('eth_getStorageAt', [f.emitter, '0x0', '0x3'])).toBe('0x' + '00'.repeat(31) + '03');
    const latest = await block('latest');
    const proof: ProofJson = await result('eth_getProof', [f.answer, ['0x01'], 'latest']);
    expect(proof).toMatchObject({
      address: f.answer,
      balance: '0x0',
      nonce: '0x1',
      codeHash: keccak256(ANSWER_CODE),
      storageProof: [{ key: '0x01', value: '0x0', proof: [] }],
    });
    await verifyEip1186(latest.stateRoot as string, proof);
    const stored: ProofJson = await result('eth_getProof', [f.emitter, ['0x0'], 'latest']);
    expect(stored).toMatchObject({ codeHash: keccak256(EMITTER_CODE), storageProof: [{ key: '0x0', value: '0x4' }] });
    await verifyEip1186(latest.stateRoot as string, stored);
    expect((await h.call('eth_getBalance', [a1, { blockHash: '0x' + '11'.repeat(32) }])).error?.message).toBe('header for hash not found');
  });

  test('default: eth_call, estimateGas, createAccessList', async () => {
    expect(await result('eth_call', [{ to: f.answer }, 'latest'])).toBe('0x' + '00'.repeat(31) + '2a');
    expect(await result('eth_call', [{ to: f.answer, input: '0x', data: '0x' }])).toBe('0x' + '00'.repeat(31) + '2a');
    expect((await h.call('eth_call', [{ to: f.answer, input: '0x01', data: '0x02' }])).error?.code).toBe(-32000);
    // Before block 1 the contract does not exist: a call to it returns nothing.
    expect(await result('eth_call', [{ to: f.answer }, '0x0'])).toBe('0x');
    expect(BigInt(await result('eth_estimateGas', [{ to: f.answer }]))).toBeGreaterThan(21_000n);
    expect(await result('eth_createAccessList', [{ to: ADDRESSES[1] }])).toEqual({ accessList: [], gasUsed: '0x5208' });
  });

  test('default: gas price, priority fee, fee history', async () => {
    const head = await block('latest');
    // The suggested tip: the 60th percentile of every tip paid in the last 20 blocks (here blocks 1..4).
    const tips: bigint[] = [];
    for (let n = 1; n <= 4; n++) {
      const base = BigInt((await block(hexN(n))).baseFeePerGas as string);
      for (const r of await result<Receipt[]>('eth_getBlockReceipts', [hexN(n)])) tips.push(BigInt(r.effectiveGasPrice) - base);
    }
    tips.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const tip = tips[Math.floor((tips.length - 1) * 0.6)];
    expect(await result('eth_maxPriorityFeePerGas')).toBe(hexN(tip));
    expect(BigInt(await result('eth_gasPrice'))).toBe(BigInt(head.baseFeePerGas as string) + tip);
    const fh: Obj = await result('eth_feeHistory', ['0x2', 'latest', [50, 100]]);
    expect(fh.oldestBlock).toBe('0x3');
    const bases = await Promise.all(['0x3', '0x4'].map(async (n) => BigInt((await block(n)).baseFeePerGas as string)));
    expect((fh.baseFeePerGas as string[]).slice(0, 2)).toEqual(bases.map(hexN));
    expect((fh.baseFeePerGas as string[]).length).toBe(3);
    expect((fh.gasUsedRatio as number[]).length).toBe(2);
    expect(fh.reward).toEqual(
      await Promise.all(
        ['0x3', '0x4'].map(async (n, i) => rewards(await result<Receipt[]>('eth_getBlockReceipts', [n]), bases[i], [50, 100])),
      ),
    );
    expect(await result('eth_feeHistory', [2, 'latest'])).toMatchObject({ oldestBlock: '0x3' });
    expect(await result('eth_feeHistory', ['0x0', 'latest'])).toEqual({ oldestBlock: '0x0' });
    expect((await h.call('eth_feeHistory', ['0x1', 'latest', [60, 10]])).error?.code).toBe(-32000);
  });

  test('default: chain, net, web3, txpool, debug', async () => {
    expect(await result('eth_chainId')).toBe('0x539');
    expect(await result('net_version')).toBe('1337');
    expect(await result('net_listening')).toBe(true);
    expect(await result('net_peerCount')).toBe('0x0');
    expect(await result('eth_syncing')).toBe(false);
    // The dev node holds the dev mnemonic's accounts.
    expect(await result('eth_accounts')).toEqual(devAccounts().map((a) => a.address.toLowerCase()));
    expect(await result('web3_sha3', ['0x'])).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(await result('web3_clientVersion')).toBe(CLIENT_IDENTITY);
    // Raw encodings: the block's header hashes to its hash, its transactions are the bytes sent, and the ordered tries
    // of the raw transactions and receipts are the header's roots.
    for (const n of [1, 2, 3, 4]) {
      const b = await block(hexN(n));
      const raw = splitRawBlock(await result('debug_getRawBlock', [hexN(n)]));
      expect(keccak256(raw.headerRlp)).toBe(b.hash);
      expect(await result('debug_getRawHeader', [hexN(n)])).toBe(raw.headerRlp);
      expect(raw.txs).toEqual(sent(n).map((t) => t.raw));
      expect(await orderedRoot(raw.txs)).toBe(b.transactionsRoot);
      expect(await orderedRoot(await result<string[]>('debug_getRawReceipts', [hexN(n)]))).toBe(b.receiptsRoot);
      for (const t of sent(n)) expect(await result('debug_getRawTransaction', [t.hash])).toBe(t.raw);
    }
    expect(await result('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' });
  });
});

describe('the pool, filters and the node priming its cache (each changes the chain: last)', () => {
  test('behavior: sendRawTransaction enters the pool; pending nonce, pending tx lookup, txpool content and filters see it', async () => {
    const pendingFilter: string = await result('eth_newPendingTransactionFilter');
    const t = Transaction.from({
      type: 2,
      chainId: 1337n,
      nonce: 2,
      gasLimit: 21000n,
      to: ADDRESSES[2],
      value: 7n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    });
    const raw = await WALLETS[1].signTransaction(t);
    const hash: string = await result('eth_sendRawTransaction', [raw]);
    expect(hash).toBe(keccak256(raw));
    expect(await result('eth_getTransactionCount', [ADDRESSES[1], 'pending'])).toBe('0x3');
    const pending: Obj = await result('eth_getTransactionByHash', [hash]);
    expect(pending).toMatchObject({ blockHash: null, blockNumber: null, transactionIndex: null, gasPrice: '0x2540be400', nonce: '0x2' });
    expect(await result('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    const content: { pending: Record<string, Record<string, Obj>> } = await result('txpool_content');
    expect(content.pending[getAddress(ADDRESSES[1])]['2'].hash).toBe(hash);
    expect(await result('eth_getFilterChanges', [pendingFilter])).toEqual([hash]);
    expect(await result('eth_getFilterChanges', [pendingFilter])).toEqual([]);
    const low = await WALLETS[1].signTransaction(
      Transaction.from({ type: 0, chainId: 1337n, nonce: 0, gasLimit: 21000n, to: ADDRESSES[2], gasPrice: 10n ** 10n }),
    );
    expect((await h.call('eth_sendRawTransaction', [low])).error?.message).toMatch(/^nonce too low: /);
  });

  test('behavior: block and log filters collect new heads until polled; uninstall; expiry after 5 minutes of silence', async () => {
    const blockFilter: string = await result('eth_newBlockFilter');
    const logFilter: string = await result('eth_newFilter', [{ address: f.emitter, fromBlock: '0x0' }]);
    // The transfer left pending by the test before goes into the same block, after the higher tip.
    const pending = (await result<{ pending: Record<string, Record<string, Obj>> }>('txpool_content')).pending;
    const mined = await new Sender(h).block([{ from: 0, to: f.emitter, tip: 5n }], {
      pending: Object.values(pending).flatMap((byNonce) => Object.values(byNonce).map((t) => t.hash as string)),
    });
    const head = await block(hexN(mined.number));
    expect(await result('eth_getFilterChanges', [blockFilter])).toEqual([head.hash]);
    const logs: Obj[] = await result('eth_getFilterChanges', [logFilter]);
    expect(logs.map((l) => [l.blockNumber, l.transactionHash])).toEqual([[hexN(mined.number), mined.txs[0].hash]]);
    expect((await result<Obj[]>('eth_getFilterLogs', [logFilter])).map((l) => l.blockNumber)).toEqual(['0x3', '0x4', hexN(mined.number)]);
    expect(await result('eth_uninstallFilter', [blockFilter])).toBe(true);
    expect(await result('eth_uninstallFilter', [blockFilter])).toBe(false);
    const idle: string = await result('eth_newBlockFilter');
    clockOffsetMs += 4 * 60_000;
    expect(await result('eth_getFilterChanges', [idle])).toEqual([]);
    clockOffsetMs += 5 * 60_000 + 1000;
    expect((await h.call('eth_getFilterChanges', [idle])).error).toEqual({ code: -32000, message: 'filter not found' });
    clockOffsetMs = 0;
  });

  test('behavior: the node primes the cache with a new head of 4+ transactions (both block forms and the receipts); readers then hit it', async () => {
    const cache = h.node.rpc.services.cache;
    const sender = new Sender(h);
    const txs = [];
    for (let i = 0; i < 4; i++) txs.push(await sender.send({ from: 1, to: f.emitter, tip: 5n }));
    cache.clear();
    await h.mine();
    expect(cache.entries).toBe(3);
    const number = await result<string>('eth_blockNumber');
    const full = await block(number, true);
    const receipts: Obj[] = await result('eth_getBlockReceipts', [number]);
    await block(number, false);
    expect([(full.transactions as Obj[]).map((t) => t.hash), receipts.length, cache.entries]).toEqual([txs.map((t) => t.hash), 4, 3]);
  });

  test('edge: a smaller new head is not primed; the first reader encodes and caches it', async () => {
    const cache = h.node.rpc.services.cache;
    const tx = await new Sender(h).send({ from: 1, to: f.emitter, tip: 5n });
    cache.clear();
    await h.mine();
    expect(cache.entries).toBe(0);
    const number = await result<string>('eth_blockNumber');
    const full = await block(number, true);
    const receipts: Obj[] = await result('eth_getBlockReceipts', [number]);
    await block(number, false);
    expect([(full.transactions as Obj[]).map((t) => t.hash), receipts.length, cache.entries]).toEqual([[tx.hash], 1, 3]);
  });
});

describe('real client', () => {
  test('behavior: ethers JsonRpcProvider reads blocks, transactions, receipts, balances and call results', async () => {
    const provider = new JsonRpcProvider(h.url, 1337, { staticNetwork: true, batchMaxCount: 1 });
    try {
      expect(await provider.getBlockNumber()).toBeGreaterThanOrEqual(4);
      const b = await provider.getBlock(2, true);
      expect(b?.prefetchedTransactions.map((t) => t.type)).toEqual([0, 2]);
      const tx = b!.prefetchedTransactions[0];
      expect(tx.from.toLowerCase()).toBe(ADDRESSES[0]);
      expect(tx.hash).toBe(sent(2)[0].hash);
      const fetched = await provider.getTransaction(tx.hash);
      expect(fetched?.hash).toBe(tx.hash);
      const receipt = await provider.getTransactionReceipt(tx.hash);
      expect(receipt?.status).toBe(1);
      expect(await provider.call({ to: f.answer })).toBe('0x' + '00'.repeat(31) + '2a');
      expect(await provider.getBalance(ADDRESSES[2], 0)).toBe(DEV_BALANCE);
      const fee = await provider.getFeeData();
      expect(fee.maxPriorityFeePerGas).toBe(BigInt(await result('eth_maxPriorityFeePerGas')));
    } finally {
      provider.destroy();
    }
  });
});
