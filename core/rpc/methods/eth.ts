/**
 * The eth_ namespace: chain/head, blocks, transactions and receipts here; state and execution in ethState.ts, fees
 * in ethFees.ts, eth_config in ethConfig.ts, logs/filters/subscriptions in ethLogs.ts (split for size; this file assembles the namespace).
 * Shapes are geth's; head answers come from memory; block and receipt JSON go through the encoding cache.
 */
import { type BlockData, type HeaderData } from '../encode/types.ts';
import { encodeBlock, encodeHeader } from '../encode/block.ts';
import { encodeReceipt } from '../encode/receipt.ts';
import { encodeTransaction } from '../encode/transaction.ts';
import { blockNumber, blockNumberOrHash } from '../blockParams.ts';
import { bool, data, hash, required, uint } from '../params.ts';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import type { RawJson } from '../json.ts';
import { blockKey, receiptsKey } from '../cache.ts';
import { RpcError } from '../errors.ts';
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';
import { ethStateMethods } from './ethState.ts';
import { ethFeeMethods } from './ethFees.ts';
import { ethConfigMethods } from './ethConfig.ts';
import { ethLogMethods } from './ethLogs.ts';

const ZERO_ADDRESS = '0x' + '00'.repeat(20);

/** Cached JSON text of a block (by hash and fullTx). */
async function blockJson(s: RpcServices, header: HeaderData | null, fullTx: boolean): Promise<RawJson | null> {
  if (header === null) return null;
  const key = blockKey(bytesToHex(header.hash), fullTx);
  const hit = s.cache.getRaw(key);
  if (hit !== undefined) return hit;
  const block = await s.deps.chain.getBlockByHash(header.hash);
  if (block === null) return null;
  return s.cache.getOrSetRaw(key, () => JSON.stringify(encodeBlock(block, fullTx)));
}

/** Cached JSON text of a block's receipts. */
async function receiptsJson(s: RpcServices, header: HeaderData | null): Promise<RawJson | null> {
  if (header === null) return null;
  const key = receiptsKey(bytesToHex(header.hash));
  const hit = s.cache.getRaw(key);
  if (hit !== undefined) return hit;
  const receipts = await s.deps.chain.getReceipts(header.hash);
  if (receipts === null) return null;
  return s.cache.getOrSetRaw(key, () => JSON.stringify(receipts.map(encodeReceipt)));
}

async function blockOf(s: RpcServices, header: HeaderData | null): Promise<BlockData | null> {
  return header === null ? null : s.deps.chain.getBlockByHash(header.hash);
}

function txAt(block: BlockData | null, index: number): Record<string, unknown> | null {
  if (block === null || index >= block.transactions.length) return null;
  const h = block.header;
  return encodeTransaction(block.transactions[index], { blockHash: h.hash, blockNumber: h.number, blockTimestamp: h.timestamp, index });
}

/** All eth_ methods the given dependencies support. */
export function ethMethods(s: RpcServices): MethodTable {
  const { chain, txpool } = s.deps;
  let headNumber = -1n;
  let headQuantity = '';
  const byHash = (h: Uint8Array) => chain.getHeaderByHash(h);
  const table: MethodTable = {
    eth_blockNumber: method([], () => {
      const n = chain.head().number;
      if (n !== headNumber) {
        headNumber = n;
        headQuantity = toQuantity(n);
      }
      return headQuantity;
    }),
    eth_chainId: method([], () => toQuantity(chain.chainId())),
    eth_syncing: method([], () => {
      const st = chain.syncing();
      return st === false
        ? false
        : {
            startingBlock: toQuantity(st.startingBlock),
            currentBlock: toQuantity(st.currentBlock),
            highestBlock: toQuantity(st.highestBlock),
          };
    }),
    eth_coinbase: method([], () => (s.deps.dev ? bytesToHex(s.deps.dev.coinbase()) : ZERO_ADDRESS)),
    eth_mining: method([], () => false),
    eth_hashrate: method([], () => '0x0'),
    eth_getBlockByHash: method([required(hash), required(bool)] as const, async ([h, full]) => blockJson(s, await byHash(h), full)),
    eth_getBlockByNumber: method([required(blockNumber), required(bool)] as const, async ([sel, full]) =>
      blockJson(s, await s.blocks.header(sel), full),
    ),
    eth_getHeaderByHash: method([required(hash)] as const, async ([h]) => {
      const header = await byHash(h);
      return header && encodeHeader(header);
    }),
    eth_getHeaderByNumber: method([required(blockNumber)] as const, async ([sel]) => {
      const header = await s.blocks.header(sel);
      return header && encodeHeader(header);
    }),
    eth_getBlockReceipts: method([required(blockNumberOrHash)] as const, async ([sel]) => receiptsJson(s, await s.blocks.header(sel)), {
      expensive: true,
    }),
    eth_getBlockTransactionCountByHash: method([required(hash)] as const, async ([h]) => {
      const b = await chain.getBlockByHash(h);
      return b && toQuantity(b.transactions.length);
    }),
    eth_getBlockTransactionCountByNumber: method([required(blockNumber)] as const, async ([sel]) => {
      const b = await blockOf(s, await s.blocks.header(sel));
      return b && toQuantity(b.transactions.length);
    }),
    eth_getUncleCountByBlockHash: method([required(hash)] as const, async ([h]) => ((await byHash(h)) ? '0x0' : null)),
    eth_getUncleCountByBlockNumber: method([required(blockNumber)] as const, async ([sel]) =>
      (await s.blocks.header(sel)) ? '0x0' : null,
    ),
    eth_getUncleByBlockHashAndIndex: method([required(hash), required(uint)] as const, () => null),
    eth_getUncleByBlockNumberAndIndex: method([required(blockNumber), required(uint)] as const, () => null),
    eth_getTransactionByHash: method([required(hash)] as const, async ([h]) => {
      const found = await chain.getTransaction(h);
      if (found) return encodeTransaction(found.tx, found.location);
      const pending = txpool?.getPendingTransaction(h);
      return pending ? encodeTransaction(pending, null) : null;
    }),
    eth_getTransactionByBlockHashAndIndex: method([required(hash), required(uint)] as const, async ([h, i]) =>
      txAt(await chain.getBlockByHash(h), i),
    ),
    eth_getTransactionByBlockNumberAndIndex: method([required(blockNumber), required(uint)] as const, async ([sel, i]) =>
      txAt(await blockOf(s, await s.blocks.header(sel)), i),
    ),
    eth_getTransactionReceipt: method([required(hash)] as const, async ([h]) => {
      const r = await chain.getReceipt(h);
      return r && encodeReceipt(r);
    }),
    ...ethFeeMethods(s),
    ...ethConfigMethods(s),
    ...ethStateMethods(s),
    ...ethLogMethods(s),
  };
  if (txpool) {
    table.eth_sendRawTransaction = method([required(data)] as const, async ([raw]) => bytesToHex(await txpool.sendRawTransaction(raw)));
  } else {
    table.eth_sendRawTransaction = method([required(data)] as const, () => {
      throw new RpcError('SERVER_ERROR', 'transaction pool is not available on this node');
    });
  }
  return table;
}
