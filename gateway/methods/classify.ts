/**
 * How each method can be cached. `block` methods carry a block reference at `param` (default `latest` when omitted);
 * `eip1898` ones accept `{blockHash}` there, so an unfinalized call is forwarded pinned to the exact block its cache
 * key names; `verify` says which field of the result must carry that block's hash before it is cached.
 */
export type MethodClass =
  | { cls: 'static' }
  | { cls: 'realtime' }
  | { cls: 'head' }
  | { cls: 'block'; param: number; eip1898?: boolean; verify?: 'hash' | 'receipts' }
  | { cls: 'blockHash' }
  | { cls: 'tx' }
  | { cls: 'logs' }
  | { cls: 'never' };

const TABLE: Record<string, MethodClass> = {
  eth_chainId: { cls: 'static' },
  net_version: { cls: 'static' },
  eth_blockNumber: { cls: 'head' },
  eth_gasPrice: { cls: 'realtime' },
  eth_maxPriorityFeePerGas: { cls: 'realtime' },
  eth_blobBaseFee: { cls: 'realtime' },
  // Changes when the head crosses a fork time: never cached.
  eth_config: { cls: 'realtime' },
  eth_syncing: { cls: 'realtime' },
  net_peerCount: { cls: 'realtime' },
  net_listening: { cls: 'realtime' },
  web3_clientVersion: { cls: 'realtime' },
  eth_getBlockByNumber: { cls: 'block', param: 0, verify: 'hash' },
  eth_getBlockReceipts: { cls: 'block', param: 0, verify: 'receipts' },
  eth_getBlockTransactionCountByNumber: { cls: 'block', param: 0 },
  eth_getTransactionByBlockNumberAndIndex: { cls: 'block', param: 0 },
  eth_getUncleCountByBlockNumber: { cls: 'block', param: 0 },
  eth_feeHistory: { cls: 'block', param: 1 },
  eth_getBalance: { cls: 'block', param: 1, eip1898: true },
  eth_getCode: { cls: 'block', param: 1, eip1898: true },
  eth_getTransactionCount: { cls: 'block', param: 1, eip1898: true },
  eth_call: { cls: 'block', param: 1, eip1898: true },
  eth_getStorageAt: { cls: 'block', param: 2, eip1898: true },
  eth_getProof: { cls: 'block', param: 2, eip1898: true },
  eth_getBlockByHash: { cls: 'blockHash' },
  eth_getBlockTransactionCountByHash: { cls: 'blockHash' },
  eth_getTransactionByBlockHashAndIndex: { cls: 'blockHash' },
  eth_getUncleCountByBlockHash: { cls: 'blockHash' },
  eth_getTransactionByHash: { cls: 'tx' },
  eth_getTransactionReceipt: { cls: 'tx' },
  eth_getLogs: { cls: 'logs' },
};

const NEVER: MethodClass = { cls: 'never' };

/** The cache class of a method (unknown methods are never cached). */
export function classify(method: string): MethodClass {
  return TABLE[method] ?? NEVER;
}

/** Methods the gateway knows by name; metric labels use `other` for the rest so label sets stay bounded. */
export const KNOWN_METHODS: ReadonlySet<string> = new Set([
  ...Object.keys(TABLE),
  'eth_sendRawTransaction',
  'eth_estimateGas',
  'eth_subscribe',
  'eth_unsubscribe',
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_uninstallFilter',
  'eth_accounts',
  'eth_createAccessList',
]);

/** Methods whose repetition has effects: never retried, never coalesced. */
const NON_IDEMPOTENT = new Set([
  'eth_sendRawTransaction',
  'eth_sendTransaction',
  'eth_subscribe',
  'eth_unsubscribe',
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_newPendingTransactionFilter',
  'eth_uninstallFilter',
  'eth_getFilterChanges',
  'eth_submitWork',
  'eth_submitHashrate',
]);

/** True when calling the method twice is harmless (a read), so it may be retried on another upstream. */
export function isIdempotent(method: string): boolean {
  return !NON_IDEMPOTENT.has(method) && !method.startsWith('personal_') && !method.startsWith('admin_') && !method.startsWith('miner_');
}
