/**
 * What the RPC server needs from the rest of the node, as small interfaces (reth's rpc-api vs provider split).
 * Handlers take only the parts they use (`Pick<RpcDeps, 'chain'>`). Methods may answer synchronously or with a
 * promise; every read that can be slow receives an AbortSignal that fires at the call's deadline and should be
 * checked between rows. Missing data is `null`, never an exception. Errors meant for the wire are XoneErrors whose
 * code is a `CoreErrorCode` (core/errors.ts, mapped by CORE_ERRORS in errors.ts): e.g. a tx-pool refusal is
 * `TXPOOL_REJECTED` with geth's message.
 */
import {
  type AccessListEntry,
  type AuthorizationData,
  type BlockData,
  type HeaderData,
  type LogData,
  type ReceiptData,
  type TransactionData,
  type TxLocation,
} from './encode/types.ts';
import type { RawJson } from './json.ts';
import type { SimulateBlockOverrides, SimulatePayload } from './simulateParams.ts';

export type MaybePromise<T> = T | Promise<T>;

/** Canonical chain reads. `head()` is synchronous: it is answered from memory on every call. */
export interface ChainView {
  chainId(): bigint;
  /** The canonical head header (in memory). */
  head(): HeaderData;
  /** Highest block the node calls "safe" / "finalized" (PoA definition: docs/decisions, "rpc-block-tags-poa"). */
  safeNumber(): bigint;
  finalizedNumber(): bigint;
  /** Lowest block whose state is still kept (0 on an archive node). */
  earliestStateNumber?(): bigint;
  getHeaderByNumber(number: bigint): MaybePromise<HeaderData | null>;
  /** Canonical or not; the RPC layer checks canonicality itself when a request requires it. */
  getHeaderByHash(hash: Uint8Array): MaybePromise<HeaderData | null>;
  getBlockByHash(hash: Uint8Array): MaybePromise<BlockData | null>;
  /** Receipts of a block in order, with their context fields filled. */
  getReceipts(blockHash: Uint8Array): MaybePromise<ReceiptData[] | null>;
  /** A mined transaction and where it is. */
  getTransaction(hash: Uint8Array): MaybePromise<{ tx: TransactionData; location: TxLocation } | null>;
  getReceipt(txHash: Uint8Array): MaybePromise<ReceiptData | null>;
  /** Consensus encodings for debug_getRaw*. */
  getRawBlock(hash: Uint8Array): MaybePromise<Uint8Array | null>;
  getRawHeader(hash: Uint8Array): MaybePromise<Uint8Array | null>;
  /** Each receipt's consensus encoding (typed receipts with their type byte). */
  getRawReceipts(hash: Uint8Array): MaybePromise<Uint8Array[] | null>;
  getRawTransaction(hash: Uint8Array): MaybePromise<Uint8Array | null>;
  /**
   * Logs of canonical blocks in [from, to] (or one block by hash) matching the criteria. More than `limit` matches
   * throw `STORE_RESULT_LIMIT` (geth's "query returned more than N results"); a read past the call's `deadline` (epoch
   * ms, compared between rows: a synchronous scan cannot wait for the signal's timer) or after `signal` fired throws
   * `STORE_READ_TIMEOUT`.
   */
  getLogs(query: LogQuery, opts: LogReadOptions): MaybePromise<LogData[]>;
  /**
   * The same logs already encoded as eth_getLogs answers them (a JSON array): a view that reads in the execution pool
   * encodes there too, to UTF-8 (json.ts framedUtf8), so a 10,000-log answer costs the main loop no encoding or copy.
   */
  getLogsJson?(query: LogQuery, opts: LogReadOptions): Promise<RawJson>;
  /** Per-block inputs of eth_feeHistory; null past the head. */
  feeHistoryBlock(number: bigint): MaybePromise<FeeHistoryBlock | null>;
  /** Suggested priority fee (geth's gas price oracle); eth_gasPrice adds the head base fee. */
  suggestTip(): MaybePromise<bigint>;
  /** The head's blob base fee (EIP-4844; eth_blobBaseFee), undefined before Cancun. Optional for partial backends. */
  headBlobBaseFee?(): MaybePromise<bigint | undefined>;
  /** EIP-7910 eth_config: the fork in force at the head, the next scheduled one and the last. Optional for partial backends. */
  forkConfigs?(): MaybePromise<ForkConfigsData>;
  /** The name of the fork in force at the head (anvil_nodeInfo's hardFork). Optional for partial backends. */
  headFork?(): string;
  /** false, or progress while syncing. */
  syncing(): false | { startingBlock: bigint; currentBlock: bigint; highestBlock: bigint };
}

/** One fork's EIP-7910 configuration; the named lists come sorted by name. */
export interface ForkConfigData {
  activationTime: number;
  blobSchedule: { target: number; max: number; baseFeeUpdateFraction: bigint } | null;
  chainId: bigint;
  /** 4 bytes. */
  forkId: Uint8Array;
  precompiles: { name: string; address: Uint8Array }[];
  systemContracts: { name: string; address: Uint8Array }[];
}

export interface ForkConfigsData {
  current: ForkConfigData | null;
  next: ForkConfigData | null;
  last: ForkConfigData | null;
}

/** How one eth_getLogs read may run: the result cap, the call's deadline and signal, and who asks (pool share). */
export interface LogReadOptions {
  limit: number;
  deadline: number;
  signal: AbortSignal;
  /** Fairness key of the execution pool (RequestScope.client); absent: not pooled. */
  client?: string;
}

/** Log filter criteria, already validated. `topics[i]` null = wildcard; an array = any of. */
export interface LogQuery {
  fromBlock: bigint;
  toBlock: bigint;
  /** When set, only this block (fromBlock/toBlock equal its number). */
  blockHash?: Uint8Array;
  addresses: Uint8Array[];
  topics: (Uint8Array[] | null)[];
}

export interface FeeHistoryBlock {
  number: bigint;
  baseFeePerGas: bigint;
  /** Base fee of the block after this one (from the EIP-1559 rule of the chain's config). */
  nextBaseFeePerGas: bigint;
  gasUsed: bigint;
  gasLimit: bigint;
  /** Every transaction's effective tip and gas used, in block order. */
  txs: { tip: bigint; gasUsed: bigint }[];
  /** Cancun on: the blob base fee of this block and of the next, blob gas used and the block's maximum. */
  blob?: { baseFee: bigint; nextBaseFee: bigint; gasUsed: bigint; maxGas: bigint; excess: bigint };
}

/** Account state at a block (identified by its header: stateRoot and number). */
export interface StateView {
  getBalance(address: Uint8Array, at: HeaderData, signal: AbortSignal): MaybePromise<bigint>;
  getNonce(address: Uint8Array, at: HeaderData, signal: AbortSignal): MaybePromise<bigint>;
  /** The account's four fields (an absent account reads as the empty one: empty code hash and storage root). */
  getAccount(address: Uint8Array, at: HeaderData, signal: AbortSignal): MaybePromise<AccountFields>;
  getCode(address: Uint8Array, at: HeaderData, signal: AbortSignal): MaybePromise<Uint8Array>;
  /** 32-byte slot value (zero when unset). */
  getStorageAt(address: Uint8Array, slot: Uint8Array, at: HeaderData, signal: AbortSignal): MaybePromise<Uint8Array>;
  /** EIP-1186 proofs; may take time (many slots, deep tries): the node runs it in the execution pool under `scope`. */
  getProof(address: Uint8Array, slots: Uint8Array[], at: HeaderData, scope: RequestScope): MaybePromise<AccountProof>;
}

export interface AccountFields {
  balance: bigint;
  nonce: bigint;
  codeHash: Uint8Array;
  storageRoot: Uint8Array;
}

export interface AccountProof {
  address: Uint8Array;
  accountProof: Uint8Array[];
  balance: bigint;
  codeHash: Uint8Array;
  nonce: bigint;
  storageHash: Uint8Array;
  storageProof: { key: Uint8Array; value: bigint; proof: Uint8Array[] }[];
}

/** A call as eth_call/estimateGas describe it (geth's TransactionArgs), fields validated. */
export interface CallRequest {
  from?: Uint8Array;
  to?: Uint8Array | null;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  nonce?: bigint;
  data?: Uint8Array;
  accessList?: AccessListEntry[];
  /** EIP-7702 authorizations (a set-code call). */
  authorizationList?: AuthorizationData[];
  /** EIP-4844 (a blob call, type 3): the versioned hashes BLOBHASH reads, and the blob fee cap. */
  blobVersionedHashes?: Uint8Array[];
  maxFeePerBlobGas?: bigint;
  chainId?: bigint;
  type?: number;
}

/** Overrides of eth_call's third parameter (geth StateOverride), validated. */
export type StateOverrides = Map<
  string,
  {
    balance?: bigint;
    nonce?: bigint;
    code?: Uint8Array;
    state?: Map<string, Uint8Array>;
    stateDiff?: Map<string, Uint8Array>;
    /** movePrecompileToAddress (0x-prefixed lower-case hex): the precompile at this address runs there instead. */
    movePrecompileTo?: string;
  }
>;

/**
 * Who asks and until when: what the RPC execution pool (core/rpcPool) needs to share its workers fairly between
 * clients and to stop work nobody waits for any more.
 */
export interface RequestScope {
  /** Fires at the request's deadline or when its client goes away (closed connection). */
  signal: AbortSignal;
  /** The request's deadline, epoch milliseconds. */
  deadline: number;
  /** Fairness key: the client IP, or the client a trusted gateway named (`X-Xone-Client`). */
  client: string;
}

export interface ExecOptions extends RequestScope {
  /** Upper bound on gas (the gas cap option). */
  gasCap: bigint;
  overrides?: StateOverrides;
}

/** Outcome of running a call: success, REVERT with its data, or another EVM failure with geth's message. */
export type ExecOutcome =
  | { status: 'success'; returnData: Uint8Array; gasUsed: bigint }
  | { status: 'revert'; returnData: Uint8Array; gasUsed: bigint }
  | { status: 'error'; error: string; gasUsed: bigint };

export interface ExecutionView {
  call(req: CallRequest, at: HeaderData, opts: ExecOptions): Promise<ExecOutcome>;
  /** The gas estimate, or the failing outcome of the highest-gas attempt. */
  estimateGas(
    req: CallRequest,
    at: HeaderData,
    opts: ExecOptions,
  ): Promise<{ status: 'success'; gas: bigint } | Exclude<ExecOutcome, { status: 'success' }>>;
  createAccessList(
    req: CallRequest,
    at: HeaderData,
    opts: ExecOptions,
  ): Promise<{ accessList: AccessListEntry[]; gasUsed: bigint; error?: string }>;
}

/** A debug_trace* request's options (geth's TraceConfig), decoded; the tracer name is checked by the TraceView. */
export interface TraceOptions {
  /** Absent = the struct logger. */
  tracer?: string;
  tracerConfig?: Record<string, unknown>;
  /** geth's `timeout` (default 5 s). */
  timeoutMs: number;
  /** The struct logger's options. */
  logger: { disableStack?: boolean; disableStorage?: boolean; enableMemory?: boolean; enableReturnData?: boolean; limit?: number };
  /** debug_traceCall's `blockOverrides` (the block the call runs in). */
  blockOverrides?: SimulateBlockOverrides;
  /** trace_replay*: beside the flatCallTracer's traces, the Parity `vmTrace` and/or `stateDiff` (tracer flatCallTracer). */
  replay?: { vmTrace: boolean; stateDiff: boolean };
}

/** Tracing (geth's debug namespace); every answer is JSON text, spliced into the response as it is. */
export interface TraceView {
  /** null when the transaction is not in a canonical block. `scope`: the request's, when the node pools the work. */
  traceTransaction(hash: Uint8Array, opts: TraceOptions, scope?: RequestScope): Promise<string | null>;
  /** geth's [{txHash, result}] for every transaction of the block. */
  traceBlock(blockHash: Uint8Array, opts: TraceOptions, scope?: RequestScope): Promise<string>;
  /** The same for a block given as RLP (its parent must be known). */
  traceBlockRlp(rlp: Uint8Array, opts: TraceOptions, scope?: RequestScope): Promise<string>;
  traceCall(req: CallRequest, at: HeaderData, opts: TraceOptions, overrides?: StateOverrides, scope?: RequestScope): Promise<string>;
  /** trace_filter: the matching flat traces of a block range, as JSON text (parsed and filtered where they are traced). */
  traceFilter(query: TraceFilterQuery, scope?: RequestScope): Promise<string>;
}

/** A trace_filter request, its block range resolved (from <= to, checked against the range cap). */
export interface TraceFilterQuery {
  from: bigint;
  to: bigint;
  /** Senders / recipients to match (empty: any). */
  fromAddress: Uint8Array[];
  toAddress: Uint8Array[];
  /** Matches skipped before the first one returned. */
  after: number;
  /** Most matches returned. */
  count?: number;
}

/** eth_simulateV1; the answer is JSON text. `scope`: the request's, when the node pools the work. */
export interface SimulateView {
  simulate(payload: SimulatePayload, at: HeaderData, scope?: RequestScope): Promise<string>;
}

/** The transaction pool as the RPC sees it. */
export interface TxPoolView {
  /** Validates and adds a raw signed transaction; returns its hash or throws TXPOOL_REJECTED with geth's message. */
  sendRawTransaction(raw: Uint8Array): Promise<Uint8Array>;
  /** A pending (not yet mined) transaction. */
  getPendingTransaction(hash: Uint8Array): TransactionData | null;
  /** Next nonce counting pending transactions (the "pending" block tag of eth_getTransactionCount). */
  pendingNonce(address: Uint8Array): MaybePromise<bigint>;
  status(): { pending: number; queued: number };
  /** Pending and queued transactions by sender. */
  content(): { pending: TransactionData[]; queued: TransactionData[] };
}

/**
 * Keys the node holds for its clients: the dev accounts on --dev (plus impersonated addresses); absent on every other
 * network, where the signing methods refuse. Signatures are 65 bytes r || s || v with v = 27/28 (geth's eth_sign).
 */
export interface AccountsView {
  /** Addresses eth_accounts lists. */
  accounts(): Uint8Array[];
  /** Fills nonce, gas and fees as geth does, signs (or impersonates) and hands the transaction to the pool. */
  sendTransaction(req: CallRequest): Promise<Uint8Array>;
  /** anvil's eth_sendUnsignedTransaction (dev only): filled like sendTransaction, sent unsigned from any address. */
  sendUnsignedTransaction?(req: CallRequest): Promise<Uint8Array>;
  /** Fills and signs like sendTransaction; returns the raw signed transaction without sending it. */
  signTransaction(req: CallRequest): Promise<Uint8Array>;
  /** EIP-191 personal-message signature (eth_sign, personal_sign). */
  signMessage(address: Uint8Array, message: Uint8Array): Promise<Uint8Array>;
  /** EIP-712 signature of typed data as eth_signTypedData_v4 takes it (object or JSON text). */
  signTypedData(address: Uint8Array, typedData: unknown): Promise<Uint8Array>;
}

/** One evm_snapshot: its id and the head block it returns to. */
export interface DevSnapshot {
  id: bigint;
  number: bigint;
  hash: Uint8Array;
}

/** Test-node controls, present only in dev mode. */
export interface DevView {
  /** Mines `blocks` blocks (default 1); `timestamp` of the first if given, `interval` seconds apart if given. */
  mine(blocks: number, timestamp?: bigint, interval?: bigint): Promise<void>;
  /** true: seal each transaction burst at once; false: stop automine (interval mining, if on, goes on as on anvil). */
  setAutomine(enabled: boolean): void;
  /**
   * evm_setIntervalMining: a block every `ms` milliseconds from the pool (0: stop; no block unless mined or automine);
   * Hardhat's `[min, max]` draws each wait from the range (max 0: stop).
   */
  setIntervalMining(ms: number | readonly [number, number]): void;
  /** anvil_getAutomine: true while each transaction burst is sealed at once. */
  getAutomine(): boolean;
  /** The next block's timestamp (evm_setNextBlockTimestamp); later blocks continue from it. */
  setNextBlockTimestamp(timestamp: bigint): MaybePromise<void>;
  /** The next block's base fee (anvil_setNextBlockBaseFeePerGas). */
  setNextBlockBaseFee(baseFee: bigint): MaybePromise<void>;
  /** Gas limit of every later block (evm_setBlockGasLimit). */
  setBlockGasLimit(gasLimit: bigint): MaybePromise<void>;
  /** Coinbase (fee recipient) of every later block (anvil_setCoinbase). */
  setCoinbase(address: Uint8Array): MaybePromise<void>;
  /** The coinbase of the next block (eth_coinbase). */
  coinbase(): Uint8Array;
  /** Removes a pending transaction; its hash, or null when the pool does not hold it (anvil_dropTransaction). */
  dropTransaction(hash: Uint8Array): MaybePromise<Uint8Array | null>;
  /** anvil_impersonateAccount / stopImpersonatingAccount / autoImpersonateAccount. */
  impersonate(address: Uint8Array, on: boolean): void;
  autoImpersonate(on: boolean): void;
  /** anvil_dumpState: the head state as anvil's gzipped JSON. */
  dumpState(): MaybePromise<Uint8Array>;
  /** anvil_loadState: merges a dump (ours or anvil's) into the head state, sealed as one block. */
  loadState(dump: Uint8Array): MaybePromise<void>;
  /** anvil_reset: back to the genesis block, pool emptied, dev settings cleared. */
  reset(): Promise<void>;
  snapshot(): MaybePromise<bigint>;
  /** The snapshots evm_revert can still return to, oldest first: id and the head block taken (anvil_metadata). */
  snapshots(): readonly DevSnapshot[];
  revert(id: bigint): MaybePromise<boolean>;
  /** evm_setTime: the dev clock reads `timestamp` now (later blocks continue from it); returns the offset in seconds. */
  setTime(timestamp: bigint): MaybePromise<bigint>;
  /** anvil_setBlockTimestampInterval: each later block `seconds` after its parent (undefined: back to the clock); whether one was set before. */
  setBlockTimestampInterval(seconds: bigint | undefined): boolean;
  /** Adds seconds to the next block timestamps; returns the total offset. */
  increaseTime(seconds: bigint): MaybePromise<bigint>;
  /** anvil_setBalance / setNonce / setCode / setStorageAt: visible at 'latest' once the promise resolves. */
  editState(edit: DevStateEdit): MaybePromise<void>;
}

/** One account's dev-mode state edit; fields left out keep their values. Plain data (crosses to the chain thread). */
export interface DevStateEdit {
  address: Uint8Array;
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** [slot (32 bytes), value (32 bytes)] pairs. */
  storage?: Array<[Uint8Array, Uint8Array]>;
}

/** Receives chain events; the node calls it after a block is durable (never before). */
export interface RpcEventSink {
  /** A new canonical head and its logs; after a reorg, logs of dropped blocks come first with `removed: true`. */
  onNewHead(header: HeaderData, logs: LogData[]): void;
  onPendingTx(hash: Uint8Array): void;
}

/** Where the server registers its sink; returns an unsubscribe function. */
export interface RpcEventSource {
  subscribe(sink: RpcEventSink): () => void;
}

/** /health inputs. */
export interface HealthSource {
  isSyncing(): boolean;
  /** Head block timestamp in seconds. */
  headTimestamp(): bigint;
}

/** Everything the server depends on; only `chain` is mandatory (a read-only node). */
export interface RpcDeps {
  chain: ChainView;
  state?: StateView;
  exec?: ExecutionView;
  txpool?: TxPoolView;
  dev?: DevView;
  /** Node-held accounts (dev mode). */
  accounts?: AccountsView;
  /** debug_trace* and trace_*. */
  trace?: TraceView;
  /** eth_simulateV1. */
  simulate?: SimulateView;
  events?: RpcEventSource;
  health?: HealthSource;
  /** Load shedding: while true, methods marked expensive are refused with -32005. */
  shed?: () => boolean;
  /** Peer count for net_peerCount. */
  peerCount?: () => number;
  /** Seconds clock (a fake in tests). */
  now?: () => number;
}
