/**
 * What clients of a real node (`XoneNode`, in-process, real RPC over 127.0.0.1) see when a heavier branch replaces
 * the one they watched (issue #16): `newHeads` for every block of the new branch, `logs` subscribers and log filters
 * get the dropped block's logs again with `removed: true` (before the new branch's), the dropped transaction's
 * receipt answers null and the transaction is back in the pool, and `latest` reads agree with the new head.
 *
 * Three Clique signers: branch A = block 1, then block 2 out of turn carrying a contract creation that logs; branch B
 * = block 1, block 2 in turn, block 3 (heavier). The node follows one peer whose served chain is switched from A to B.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseGenesis, type Genesis } from '../../core/chain/genesis/index.ts';
import { signTransaction } from '../../core/chain/transaction/index.ts';
import { ChainService } from '../../core/chainService/chainService.ts';
import { buildCliqueExtra } from '../../core/consensus/clique/index.ts';
import { silentLogger } from '../../core/log/index.ts';
import { devAccounts, devGenesisJson } from '../../core/node/dev/devChain.ts';
import { XoneNode } from '../../core/node/node.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { rawBlock } from '../../core/store/read/rawBlock.ts';
import type { BlockServingSource } from '../../core/sync/serving/interface.ts';
import { storeServingSource, type StoreServingSource } from '../../core/sync/serving/storeServingSource.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';
import { serveSource, type Served } from '../sync/support/chain.ts';

const newDatadir = datadirFactory();
const accounts = devAccounts(3);
const keys = accounts.map((a) => hexToBytes(a.privateKey));
const json = devGenesisJson(accounts);
json.extraData = bytesToHex(buildCliqueExtra(new Uint8Array(32), accounts.map((a) => hexToBytes(a.address)).sort(Buffer.compare)));
const genesis: Genesis = parseGenesis(json);
const TOPIC = '0x' + 'ab'.repeat(32);

/** A creation transaction whose init code emits one LOG1 (topic TOPIC) and deploys nothing. */
const logTx = signTransaction(
  {
    type: 2,
    chainId: 1337n,
    nonce: 0n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
    gasLimit: 100_000n,
    to: undefined,
    value: 0n,
    data: Uint8Array.from([0x7f, ...hexToBytes(TOPIC), 0x60, 0x00, 0x60, 0x00, 0xa1, 0x00]),
  },
  keys[1],
);

const services: ChainService[] = [];
let sources: { a: StoreServingSource; b: StoreServingSource };
let current: BlockServingSource;
const listeners = new Set<(h: { number: bigint; hash: Uint8Array }) => void>();
let served: Served;
let node: XoneNode;

function signer(i: number): ChainService {
  const s = ChainService.open({ datadir: newDatadir(), genesis, batch: 0, signerKey: keys[i] });
  services.push(s);
  return s;
}

async function seal(s: ChainService, withTx = false): Promise<Uint8Array> {
  const parent = s.head();
  const txs = withTx ? [{ raw: logTx.raw, sender: hexToBytes(accounts[1].address) }] : [];
  const { head } = await s.produce({ txs, timestamp: parent.header.timestamp + 2n });
  return rawBlock(s.store, head.hash) as Uint8Array;
}

beforeAll(async () => {
  const s1 = signer(1);
  const b1 = await seal(s1);
  const s2 = signer(2);
  await s2.importBlocks([b1]);
  await seal(s2, true); // A2: out of turn, with the logging transaction
  const s0 = signer(0);
  await s0.importBlocks([b1]);
  const b2 = await seal(s0); // B2: in turn
  await s1.importBlocks([b2]);
  await seal(s1); // B3
  const submit = async (): Promise<Uint8Array> => new Uint8Array(32);
  sources = {
    a: storeServingSource({ reader: s2.store, chainId: 1337n, submitTx: submit }),
    b: storeServingSource({ reader: s1.store, chainId: 1337n, submitTx: submit }),
  };
  current = sources.a;
  // One peer whose chain can be switched, as a peer that itself reorged would be.
  served = await serveSource({
    status: () => current.status(),
    blockRlp: (n) => current.blockRlp(n),
    subscribeHeads: (cb) => {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    submitTx: submit,
  });
  node = await XoneNode.start(
    {
      datadir: newDatadir(),
      genesis,
      dev: false,
      mine: false,
      http: { host: '127.0.0.1', port: 0 },
      watchdog: false,
      peers: [served.url],
      recoveryWorkers: 0,
    },
    { logger: silentLogger },
  );
}, 60_000);

afterAll(async () => {
  await node?.close();
  await served?.close();
  for (const s of services) s.close();
});

async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result: T; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

async function until<T>(fn: () => Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A WebSocket subscription collecting notifications. */
async function subscribe(params: unknown[]): Promise<{ events: Record<string, unknown>[]; close(): void }> {
  const ws = new WebSocket(node.url.replace('http', 'ws'));
  await new Promise((r) => ws.once('open', r));
  const events: Record<string, unknown>[] = [];
  await new Promise<void>((resolve) => {
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as { id?: number; params?: { result: Record<string, unknown> } };
      if (msg.id === 1) resolve();
      else if (msg.params) events.push(msg.params.result);
    });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params }));
  });
  return { events, close: () => ws.close() };
}

describe('a reorg as clients of the node see it', () => {
  it('behavior: newHeads, removed logs (subscription and filter), null receipt, the transaction back in the pool, safe and finalized on the new branch', async () => {
    const a2 = bytesToHex(sources.a.status().head.hash);
    await until(async () => (await rpc<{ hash: string }>('eth_getBlockByNumber', ['latest', false])).hash === a2);
    const receiptA = await rpc<{ blockHash: string; logs: { topics: string[] }[] }>('eth_getTransactionReceipt', [bytesToHex(logTx.hash)]);
    expect(receiptA.blockHash).toBe(a2);
    const heads = await subscribe(['newHeads']);
    const logs = await subscribe(['logs', { topics: [TOPIC] }]);
    const filter = await rpc<string>('eth_newFilter', [{ topics: [TOPIC] }]);

    current = sources.b;
    const head = sources.b.status().head;
    for (const cb of listeners) cb(head);
    const b3 = bytesToHex(head.hash);
    await until(async () => (await rpc<{ hash: string }>('eth_getBlockByNumber', ['latest', false])).hash === b3);
    await until(async () => heads.events.some((h) => h.hash === b3));

    // newHeads: blocks 2 and 3 of branch B, in order.
    expect(heads.events.map((h) => Number(h.number))).toEqual([2, 3]);
    // The dropped log, marked removed, on the subscription and in the filter's changes.
    await until(async () => logs.events.length > 0);
    expect(logs.events).toMatchObject([{ removed: true, blockHash: a2, transactionHash: bytesToHex(logTx.hash), topics: [TOPIC] }]);
    expect(await rpc('eth_getFilterChanges', [filter])).toMatchObject([{ removed: true, blockHash: a2 }]);
    // Its receipt answers null, its block is still readable by hash, and the transaction waits in the pool again.
    expect(await rpc('eth_getTransactionReceipt', [bytesToHex(logTx.hash)])).toBeNull();
    expect(await rpc('eth_getBlockByHash', [a2, false])).toMatchObject({ hash: a2 });
    expect(await rpc('eth_getTransactionByHash', [bytesToHex(logTx.hash)])).toMatchObject({ blockHash: null });
    // latest reads agree with the new head: the sender's nonce is B's (0: B has no transaction).
    expect(await rpc('eth_getTransactionCount', [accounts[1].address, 'latest'])).toBe('0x0');
    // safe = head - 1 is B's block 2 (not A's); finalized = head - (floor(3/2) + 1) = block 1, below the fork.
    const b2 = await rpc<{ hash: string }>('eth_getBlockByNumber', ['0x2', false]);
    expect(b2.hash).not.toBe(a2);
    expect(await rpc('eth_getBlockByNumber', ['safe', false])).toMatchObject({ hash: b2.hash });
    expect(await rpc('eth_getBlockByNumber', ['finalized', false])).toMatchObject({ number: '0x1' });
    heads.close();
    logs.close();
  });
});
