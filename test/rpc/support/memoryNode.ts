/**
 * An in-memory implementation of the RPC dependency interfaces over a ChainBuilder chain: real blocks, receipts,
 * logs and account state; calls executed by a real EVM; a real (small) tx pool that decodes and checks raw signed
 * transactions with ethers. It is the second implementation of core/rpc/interface.ts (the node's store is the first).
 */
import { createEVM } from '@ethereumjs/evm';
import { Transaction } from 'ethers';
import {
  type AccountProof,
  type CallRequest,
  type ChainView,
  type DevView,
  type ExecOutcome,
  type ExecutionView,
  type FeeHistoryBlock,
  type HealthSource,
  type LogQuery,
  type RpcEventSink,
  type RpcEventSource,
  type StateView,
  type TxPoolView,
} from '../../../core/rpc/interface.ts';
import { type HeaderData, type LogData, type TransactionData } from '../../../core/rpc/encode/types.ts';
import { XoneError } from '../../../core/errors.ts';
import { equalBytes, hexToBytes } from '../../../core/primitives/hex.ts';
import { keccak256 } from '../../../core/primitives/keccak.ts';
import { logMatches } from '../../../core/rpc/logMatch.ts';
import { type BuiltBlock, CHAIN_ID, CODE, type ChainBuilder, type TxSpec, nextBaseFee } from './chainBuilder.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class MemoryNode implements ChainView, StateView, ExecutionView, TxPoolView, DevView, RpcEventSource, HealthSource {
  private readonly byHash = new Map<string, BuiltBlock>();
  private readonly txIndex = new Map<string, { block: BuiltBlock; index: number }>();
  private readonly sinks = new Set<RpcEventSink>();
  readonly pool: TransactionData[] = [];
  /** Injected fault: getLogs takes this long per block (checks the signal between blocks). */
  logsDelayMs = 0;
  syncingFlag = false;
  automine = true;
  timeOffset = 0n;
  private snapshots: number[] = [];

  constructor(readonly builder: ChainBuilder) {
    for (const b of builder.blocks) this.index(b);
  }

  private index(b: BuiltBlock): void {
    this.byHash.set(hex(b.block.header.hash), b);
    b.block.transactions.forEach((tx, index) => this.txIndex.set(hex(tx.hash), { block: b, index }));
  }

  private get blocks(): BuiltBlock[] {
    return this.builder.blocks;
  }

  // ChainView
  chainId = () => CHAIN_ID;
  head = () => this.blocks.at(-1)!.block.header;
  safeNumber = () => (this.head().number > 1n ? this.head().number - 1n : 0n);
  finalizedNumber = () => (this.head().number > 2n ? this.head().number - 2n : 0n);
  getHeaderByNumber = (n: bigint) => this.blocks[Number(n)]?.block.header ?? null;
  getHeaderByHash = (h: Uint8Array) => this.byHash.get(hex(h))?.block.header ?? null;
  getBlockByHash = (h: Uint8Array) => this.byHash.get(hex(h))?.block ?? null;
  getReceipts = (h: Uint8Array) => this.byHash.get(hex(h))?.receipts ?? null;
  getTransaction = (h: Uint8Array) => {
    const at = this.txIndex.get(hex(h));
    if (!at) return null;
    const hd = at.block.block.header;
    return {
      tx: at.block.block.transactions[at.index],
      location: { blockHash: hd.hash, blockNumber: hd.number, index: at.index },
    };
  };
  getReceipt = (h: Uint8Array) => {
    const at = this.txIndex.get(hex(h));
    return at ? at.block.receipts[at.index] : null;
  };
  getRawBlock = (h: Uint8Array) => this.byHash.get(hex(h))?.raw ?? null;
  getRawHeader = (h: Uint8Array) => this.byHash.get(hex(h))?.rawHeader ?? null;
  getRawReceipts = (h: Uint8Array) => this.byHash.get(hex(h))?.rawReceipts ?? null;
  getRawTransaction = (h: Uint8Array) => {
    const at = this.txIndex.get(hex(h));
    return at ? at.block.rawTxs[at.index] : null;
  };
  async getLogs(q: LogQuery, opts: { limit: number; signal: AbortSignal }): Promise<LogData[]> {
    const out: LogData[] = [];
    for (let n = q.fromBlock; n <= q.toBlock; n++) {
      if (this.logsDelayMs > 0) await sleep(this.logsDelayMs);
      if (opts.signal.aborted) throw new XoneError('STORE_READ_TIMEOUT', 'getLogs aborted');
      const b = this.blocks[Number(n)];
      if (!b || (q.blockHash && !equalBytes(q.blockHash, b.block.header.hash))) continue;
      for (const r of b.receipts)
        for (const l of r.logs) {
          if (!logMatches(l, q)) continue;
          if (out.length >= opts.limit) throw new XoneError('STORE_RESULT_LIMIT', `query returned more than ${opts.limit} results`);
          out.push(l);
        }
    }
    return out;
  }
  feeHistoryBlock(n: bigint): FeeHistoryBlock | null {
    const b = this.blocks[Number(n)];
    if (!b) return null;
    const h = b.block.header;
    return {
      number: n,
      baseFeePerGas: h.baseFeePerGas ?? 0n,
      nextBaseFeePerGas: nextBaseFee(h),
      gasUsed: h.gasUsed,
      gasLimit: h.gasLimit,
      txs: b.receipts.map((r) => ({ tip: r.effectiveGasPrice - (h.baseFeePerGas ?? 0n), gasUsed: r.gasUsed })),
    };
  }
  suggestTip = () => 1_000_000_000n;
  syncing = () =>
    this.syncingFlag ? { startingBlock: 0n, currentBlock: this.head().number, highestBlock: this.head().number + 10n } : (false as const);

  // HealthSource
  isSyncing = () => this.syncingFlag;
  headTimestamp = () => this.head().timestamp;

  // StateView
  private account(a: Uint8Array, at: HeaderData) {
    return this.blocks[Number(at.number)].state.get(hex(a));
  }
  getBalance = (a: Uint8Array, at: HeaderData) => this.account(a, at)?.balance ?? 0n;
  getNonce = (a: Uint8Array, at: HeaderData) => this.account(a, at)?.nonce ?? 0n;
  getCode = (a: Uint8Array) => CODE.get(hex(a)) ?? new Uint8Array();
  getStorageAt = () => new Uint8Array(32);
  getProof(a: Uint8Array, slots: Uint8Array[], at: HeaderData): AccountProof {
    const acct = this.account(a, at);
    return {
      address: a,
      accountProof: [at.stateRoot],
      balance: acct?.balance ?? 0n,
      codeHash: keccak256(this.getCode(a)),
      nonce: acct?.nonce ?? 0n,
      storageHash: keccak256(new Uint8Array()),
      storageProof: slots.map((key) => ({ key, value: 0n, proof: [] })),
    };
  }

  // ExecutionView
  async call(req: CallRequest): Promise<ExecOutcome> {
    const code = req.to ? CODE.get(hex(req.to)) : undefined;
    if (!code) return { status: 'success', returnData: new Uint8Array(), gasUsed: 21_000n };
    const evm = await createEVM();
    const res = await evm.runCode({ code, data: req.data ?? new Uint8Array(), gasLimit: req.gas ?? 30_000_000n });
    const gasUsed = 21_000n + res.executionGasUsed;
    if (res.exceptionError?.error === 'revert') return { status: 'revert', returnData: res.returnValue, gasUsed };
    if (res.exceptionError) return { status: 'error', error: res.exceptionError.error, gasUsed };
    return { status: 'success', returnData: res.returnValue, gasUsed };
  }
  async estimateGas(req: CallRequest) {
    const out = await this.call(req);
    return out.status === 'success' ? { status: 'success' as const, gas: out.gasUsed } : out;
  }
  async createAccessList(req: CallRequest) {
    const out = await this.call(req);
    return { accessList: [], gasUsed: out.gasUsed, ...(out.status === 'error' ? { error: out.error } : {}) };
  }

  // TxPoolView
  async sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    let t: Transaction;
    try {
      t = Transaction.from('0x' + hex(raw));
    } catch (err) {
      throw new XoneError('TXPOOL_REJECTED', `rlp: ${(err as Error).message.split(' (')[0]}`);
    }
    if (!t.from) throw new XoneError('TXPOOL_REJECTED', 'invalid sender');
    const hash = keccak256(raw);
    if (this.pool.some((p) => equalBytes(p.hash, hash)) || this.txIndex.has(hex(hash)))
      throw new XoneError('TXPOOL_REJECTED', 'already known');
    const from = hexToBytes(t.from);
    const stateNonce = this.builder.nonceOf(from);
    if (BigInt(t.nonce) < stateNonce)
      throw new XoneError('TXPOOL_REJECTED', `nonce too low: address ${t.from}, tx: ${t.nonce} state: ${stateNonce}`);
    const tx: TransactionData = {
      type: t.type ?? 0,
      hash,
      from,
      to: t.to ? hexToBytes(t.to) : null,
      nonce: BigInt(t.nonce),
      gasLimit: t.gasLimit,
      value: t.value,
      data: hexToBytes(t.data),
      chainId: t.chainId,
      v: t.type === 0 ? (t.chainId ? t.chainId * 2n + 35n : 27n) + BigInt(t.signature!.yParity) : BigInt(t.signature!.yParity),
      r: BigInt(t.signature!.r),
      s: BigInt(t.signature!.s),
      ...(t.type === 2
        ? { maxFeePerGas: t.maxFeePerGas!, maxPriorityFeePerGas: t.maxPriorityFeePerGas!, accessList: [] }
        : { gasPrice: t.gasPrice! }),
    };
    this.pool.push(tx);
    for (const s of this.sinks) s.onPendingTx(hash);
    return hash;
  }
  getPendingTransaction = (h: Uint8Array) => this.pool.find((p) => equalBytes(p.hash, h)) ?? null;
  pendingNonce = (a: Uint8Array) => this.builder.nonceOf(a) + BigInt(this.pool.filter((p) => equalBytes(p.from, a)).length);
  status = () => ({ pending: this.pool.length, queued: 0 });
  content = () => ({ pending: [...this.pool], queued: [] });

  // DevView
  async mine(blocks: number): Promise<void> {
    for (let i = 0; i < blocks; i++) await this.produce([]);
  }
  setAutomine = (on: boolean) => {
    this.automine = on;
  };
  snapshot = () => BigInt(this.snapshots.push(this.blocks.length) - 1);
  revert = (id: bigint) => Number(id) < this.snapshots.length;
  increaseTime = (s: bigint) => (this.timeOffset += s);
  editState = () => undefined;
  // The anvil_* controls the in-memory node does not model (the real node's are tested in test/node/devParity.test.ts).
  getAutomine = () => false;
  setNextBlockTimestamp = () => undefined;
  setNextBlockBaseFee = () => undefined;
  setBlockGasLimit = () => undefined;
  setCoinbase = () => undefined;
  coinbase = () => new Uint8Array(20);
  dropTransaction = () => null;
  impersonate = () => undefined;
  autoImpersonate = () => undefined;
  dumpState = () => new Uint8Array(0);
  loadState = () => undefined;
  reset = async () => undefined;

  /** Produces a block from specs and announces it like the node would after it is durable. */
  async produce(specs: TxSpec[]): Promise<BuiltBlock> {
    const b = await this.builder.addBlock(specs);
    this.index(b);
    const logs = b.receipts.flatMap((r) => r.logs);
    for (const s of this.sinks) s.onNewHead(b.block.header, logs);
    return b;
  }

  // RpcEventSource
  subscribe(sink: RpcEventSink): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }
}
