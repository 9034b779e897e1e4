/**
 * eth_simulateV1 (execution-apis, geth's internal/ethapi/simulate.go): blocks of calls executed one after another on
 * the state after a canonical block, each block with its overrides (number, time, gas limit, fee recipient,
 * prevRandao, base fee) and state overrides (incl. movePrecompileToAddress), with real headers: state roots from a
 * scratch trie, transaction and receipt roots, bloom and hash, so logs and hashes agree with geth's. `validation`
 * turns on nonce, balance, base-fee and EOA checks; `traceTransfers` adds ERC-7528 Transfer logs for ether moved.
 * A plain function over a StateReader plus a root computer: a state-reading job for the RPC execution pool.
 */
import { EMPTY_REQUESTS_HASH, requestsHash, transactionsRoot, type Block } from '../../chain/block/index.ts';
import { bloomUnion, logsBloom } from '../../chain/bloom.ts';
import { forkAt, isForkActive, type ChainConfig, type Fork } from '../../chain/forks.ts';
import { EMPTY_BLOOM, EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT, headerHash, type Header } from '../../chain/header/index.ts';
import { receiptsRoot, type Receipt } from '../../chain/receipt/index.ts';
import { MAX_TX_GAS, unsignedTransaction, type Transaction } from '../../chain/transaction/index.ts';
import { XoneError } from '../../errors.ts';
import { EMPTY_ACCOUNT } from '../../state/account.ts';
import type { StateReader } from '../../state/interface.ts';
import { JournaledState } from '../../state/journaledState.ts';
import { bytesOfKey } from '../../state/keys.ts';
import type { StateRootComputer } from '../../state/stateRoot.ts';
import { toChecksumAddress } from '../../primitives/address.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { revertReason } from '../../primitives/revertReason.ts';
import { applyTransaction, blobGasOf } from '../applyTransaction.ts';
import { blockEnvOf } from '../block/executeBlock.ts';
import { collectRequests } from '../block/requests.ts';
import { preBlockSystemCalls } from '../block/systemCalls.ts';
import { callBlockEnv } from '../call/runCall.ts';
import type { CallRequest } from '../call/types.ts';
import { applyStateOverrides, precompileMoves, type PrecompileMoveErrors, type StateOverrideSet } from '../call/stateOverrides.ts';
import { TxInvalidError } from '../errors.ts';
import { EvmHost, precompileAddresses, REMOVED_PRECOMPILE } from '../evmHost.ts';
import type { EvmHostPool } from '../evmHostPool.ts';
import { expectedBaseFee } from '../header/baseFee.ts';
import { expectedExcessBlobGas } from '../header/blobGas.ts';
import { foldChanges } from '../trace/foldChanges.ts';
import { attachHooks, type FrameEnter, type FrameExit, type LogEvent } from '../trace/hooks.ts';
import type { Log } from '../../chain/receipt/index.ts';
import type { BlockOverrides } from '../types.ts';

export type SimBlockOverrides = BlockOverrides;

export interface SimBlockRequest {
  blockOverrides?: SimBlockOverrides;
  /** With movePrecompileToAddress: the precompile runs at the new address, the old one gets the override's code. */
  stateOverrides?: StateOverrideSet;
  calls: CallRequest[];
}

export interface SimulateOptions {
  validation: boolean;
  traceTransfers: boolean;
  gasCap: bigint;
  /** Epoch ms; past it the simulation stops (-32016). */
  deadline: number;
  /** The thread's idle EVMs; without it the request builds its own. */
  hosts?: EvmHostPool;
}

/** A call's outcome in geth's simCallResult shape (logs still without their block context). */
export interface SimCall {
  status: 0 | 1;
  gasUsed: bigint;
  /** Gas used before the refund (geth's maxUsedGas: what a gas limit must cover). */
  maxUsedGas: bigint;
  returnData: Uint8Array;
  logs: Log[];
  /**
   * With traceTransfers: each kept log's place among all the logs the call emitted, those of failed frames included,
   * and how many it emitted. geth's simulator numbers a block's logs by that running count (its tracer's `count`
   * does not go back when a frame reverts: execution-apis ethSimulate-use-as-many-features-as-possible, logIndex 6
   * after six failed transfers). Without it the kept logs are numbered in order.
   */
  logOrder?: { indexes: number[]; emitted: number };
  error?: { code: number; message: string; data?: Uint8Array };
}

export interface SimBlock {
  header: Header;
  hash: Uint8Array;
  transactions: Transaction[];
  senders: Uint8Array[];
  calls: SimCall[];
}

/** The spec's error kinds (execution-apis eth_simulateV1; codes in core/rpc/errors.ts). */
export type SimErrorCode =
  | 'SIM_NONCE_TOO_LOW'
  | 'SIM_NONCE_TOO_HIGH'
  | 'SIM_BASE_FEE_TOO_LOW'
  | 'SIM_INTRINSIC_GAS'
  | 'SIM_INSUFFICIENT_FUNDS'
  | 'SIM_BLOCK_GAS_LIMIT'
  | 'SIM_BLOCK_NUMBER_ORDER'
  | 'SIM_TIMESTAMP_ORDER'
  | 'SIM_MOVE_TO_ITSELF'
  | 'SIM_SENDER_NOT_EOA'
  | 'SIM_INITCODE_TOO_LARGE'
  | 'SIM_TOO_MANY_BLOCKS'
  | 'SIM_INVALID_PARAMS'
  /** geth's -32000: a move of an address that holds no precompile. */
  | 'SIM_SERVER_ERROR'
  /** geth's -32603, its code for an invalid message with no spec code (a nonce at 2^64 - 1). */
  | 'SIM_INTERNAL'
  | 'SIM_TIMEOUT';

/** A request the spec refuses as a whole, with one of its codes. */
export class SimulateError extends XoneError<SimErrorCode> {}

/** The spec's most blocks per request. */
export const MAX_SIMULATE_BLOCKS = 256;
/** geth's step between block timestamps when the request sets none. */
const TIMESTAMP_INCREMENT = 12n;
/** ERC-7528: the pseudo-address of native ether in Transfer logs. */
const ETHER = new Uint8Array(20).fill(0xee);
const TRANSFER_TOPIC = keccak256(new TextEncoder().encode('Transfer(address,address,uint256)'));
const ZERO_ADDRESS = new Uint8Array(20);

const word = (v: bigint | Uint8Array): Uint8Array => {
  const out = new Uint8Array(32);
  if (v instanceof Uint8Array) out.set(v, 32 - v.length);
  else {
    let x = v;
    for (let i = 31; i >= 0; i--) {
      out[i] = Number(x & 0xffn);
      x >>= 8n;
    }
  }
  return out;
};

/** The spec's kind of an invalid message (geth internal/ethapi/errors.go txValidationError). */
function invalidCode(err: TxInvalidError): SimErrorCode {
  switch (err.code) {
    case 'TX_NONCE_MISMATCH':
      return BigInt(String(err.meta.actual)) < BigInt(String(err.meta.expected)) ? 'SIM_NONCE_TOO_LOW' : 'SIM_NONCE_TOO_HIGH';
    case 'TX_FEE_CAP_TOO_LOW':
      return 'SIM_BASE_FEE_TOO_LOW';
    case 'TX_INTRINSIC_GAS':
      return 'SIM_INTRINSIC_GAS';
    case 'TX_INSUFFICIENT_FUNDS':
      return 'SIM_INSUFFICIENT_FUNDS';
    case 'TX_GAS_LIMIT_REACHED':
      return 'SIM_BLOCK_GAS_LIMIT';
    case 'TX_SENDER_NOT_EOA':
      return 'SIM_SENDER_NOT_EOA';
    case 'TX_INIT_CODE_TOO_LARGE':
      return 'SIM_INITCODE_TOO_LARGE';
    case 'TX_NONCE_MAX':
      return 'SIM_INTERNAL';
    default:
      return 'SIM_INVALID_PARAMS';
  }
}

/** Runs the blocks of an eth_simulateV1 request on `base` (the state after `parent`). */
export async function simulate(
  blocks: readonly SimBlockRequest[],
  parent: { header: Header; hash: Uint8Array },
  base: StateReader,
  roots: StateRootComputer,
  config: ChainConfig,
  canonicalHash: (n: bigint) => Uint8Array | undefined,
  opts: SimulateOptions,
): Promise<SimBlock[]> {
  if (blocks.length > MAX_SIMULATE_BLOCKS)
    throw new SimulateError('SIM_TOO_MANY_BLOCKS', `too many blocks: ${blocks.length} > ${MAX_SIMULATE_BLOCKS}`);
  const sim = new JournaledState(base);
  const out: SimBlock[] = [];
  let prev = parent;
  const hashOf = (n: bigint): Uint8Array | undefined => {
    for (const b of out) if (b.header.number === n) return b.hash;
    return n <= parent.header.number ? canonicalHash(n) : undefined;
  };
  // Numbers and times first: a gap in numbers is filled with empty blocks, as geth does.
  const planned: { request: SimBlockRequest | undefined; number: bigint; time: bigint }[] = [];
  let number = parent.header.number;
  let time = parent.header.timestamp;
  for (const b of blocks) {
    const o = b.blockOverrides ?? {};
    const n = o.number ?? number + 1n;
    if (n <= number) throw new SimulateError('SIM_BLOCK_NUMBER_ORDER', `block numbers must be in order: ${n} <= ${number}`);
    for (let gap = number + 1n; gap < n; gap++) {
      time += TIMESTAMP_INCREMENT;
      planned.push({ request: undefined, number: gap, time });
    }
    const t = o.time ?? time + TIMESTAMP_INCREMENT;
    if (t <= time) throw new SimulateError('SIM_TIMESTAMP_ORDER', `block timestamps must be in order: ${t} <= ${time}`);
    planned.push({ request: b, number: n, time: t });
    number = n;
    time = t;
  }
  if (planned.length > MAX_SIMULATE_BLOCKS)
    throw new SimulateError('SIM_TOO_MANY_BLOCKS', `too many blocks: ${planned.length} > ${MAX_SIMULATE_BLOCKS}`);
  const hosts = new RequestHosts(config.chainId, opts.hosts);
  // The gas cap is one budget for the whole request, as geth's gas pool: each call's gas is capped at what the calls
  // before it left, and its gas used (after the refund) is taken from it.
  const budget = { gas: opts.gasCap > 0n ? opts.gasCap : undefined };
  for (const plan of planned) {
    if (Date.now() > opts.deadline) throw new SimulateError('SIM_TIMEOUT', 'execution timeout');
    const b = await simulateBlock(plan, prev, sim, roots, config, hashOf, opts, hosts, budget);
    out.push(b);
    prev = { header: b.header, hash: b.hash };
  }
  // Only a request that ended normally gives its EVMs back: one stopped by an exception may be mid-frame.
  hosts.release();
  return out;
}

/**
 * The EVMs of one request, one per kind (fork, loop, precompile moves): the blocks of one kind share it, and only
 * the state and block context change underneath (building an EVM cost ~1 ms per simulated block). Plain ones come
 * from the thread's idle hosts when there are any; traced or moved ones are the request's own.
 */
class RequestHosts {
  private readonly built = new Map<string, EvmHost>();
  private readonly lent: EvmHost[] = [];

  constructor(
    private readonly chainId: bigint,
    private readonly lender: EvmHostPool | undefined,
  ) {}

  get(fork: Fork, state: JournaledState, libraryLoop: boolean, moves: ReadonlyMap<string, string>): EvmHost {
    const key = `${fork}|${libraryLoop}|${[...moves].join(';')}`;
    let host = this.built.get(key);
    if (host !== undefined) return host;
    if (!libraryLoop && moves.size === 0 && this.lender !== undefined) {
      host = this.lender.take(this.chainId, fork, state);
      this.lent.push(host);
    } else {
      host = new EvmHost(this.chainId, fork, state, { libraryLoop, precompileMoves: moves });
    }
    this.built.set(key, host);
    return host;
  }

  release(): void {
    for (const host of this.lent) this.lender?.give(host);
    this.lent.length = 0;
  }
}

async function simulateBlock(
  plan: { request: SimBlockRequest | undefined; number: bigint; time: bigint },
  parent: { header: Header; hash: Uint8Array },
  sim: JournaledState,
  roots: StateRootComputer,
  config: ChainConfig,
  hashOf: (n: bigint) => Uint8Array | undefined,
  opts: SimulateOptions,
  hosts: RequestHosts,
  budget: { gas: bigint | undefined },
): Promise<SimBlock> {
  const o = plan.request?.blockOverrides ?? {};
  const fork = forkAt(config, Number(plan.number), Number(plan.time));
  const p = parent.header;
  const parentFork = forkAt(config, Number(p.number), Number(p.timestamp));
  const london = isForkActive(fork, 'London');
  const baseFee = london ? (o.baseFeePerGas ?? (opts.validation ? expectedBaseFee(p, parentFork) : 0n)) : undefined;
  const header: Header = {
    parentHash: parent.hash,
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: o.feeRecipient ?? p.coinbase,
    stateRoot: EMPTY_TRIE_ROOT,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: EMPTY_BLOOM,
    // As geth: a post-merge block has difficulty 0 even on top of the terminal (or a pre-merge) block.
    difficulty: isForkActive(fork, 'Paris') ? 0n : p.difficulty,
    number: plan.number,
    gasLimit: o.gasLimit ?? p.gasLimit,
    gasUsed: 0n,
    timestamp: plan.time,
    extraData: new Uint8Array(0),
    mixHash: o.prevRandao ?? new Uint8Array(32),
    nonce: new Uint8Array(8),
    ...(baseFee !== undefined ? { baseFeePerGas: baseFee } : {}),
    ...(isForkActive(fork, 'Shanghai') ? { withdrawalsRoot: EMPTY_TRIE_ROOT } : {}),
    ...(isForkActive(fork, 'Cancun')
      ? { blobGasUsed: 0n, excessBlobGas: expectedExcessBlobGas(p, config, fork), parentBeaconBlockRoot: new Uint8Array(32) }
      : {}),
    ...(isForkActive(fork, 'Prague') ? { requestsHash: EMPTY_REQUESTS_HASH } : {}),
  };
  const state = new JournaledState({
    getAccount: (a) => sim.getAccount(a),
    getStorage: (a, s) => sim.getStorage(a, s),
    getCode: (h) => sim.codeByHash(h),
  });
  const overrides = plan.request?.stateOverrides;
  const active = precompileAddresses(config.chainId, fork);
  const moved = precompileMoves(overrides, active, SIM_MOVE_ERRORS);
  // A moved precompile's new address is an account of the block (an empty one when it held none).
  for (const to of moved.values())
    if (to !== REMOVED_PRECOMPILE && state.getAccount(bytesOfKey(to)) === undefined) state.putAccount(bytesOfKey(to), EMPTY_ACCOUNT);
  if (overrides) applyStateOverrides(state, overrides);
  const block: Block = { header, transactions: [], ommers: [], ...(header.withdrawalsRoot ? { withdrawals: [] } : {}) };
  const env = blockEnvOf(block, { config, fork, blockHash: (n) => (n < plan.number && n + 256n >= plan.number ? hashOf(n) : undefined) });
  const host = hosts.get(fork, state, opts.traceTransfers || moved.size > 0, moved);
  const evmBlock = host.bind(state, env);
  // As geth's simulator: the beacon-root and block-hash system calls before the calls, the requests after them.
  await preBlockSystemCalls(host, evmBlock, state, fork, header);
  const calls: SimCall[] = [];
  const txs: Transaction[] = [];
  const senders: Uint8Array[] = [];
  const receipts: Receipt[] = [];
  let gasUsed = 0n;
  let blobGasUsed = 0n;
  for (const req of plan.request?.calls ?? []) {
    if (Date.now() > opts.deadline) throw new SimulateError('SIM_TIMEOUT', 'execution timeout');
    const from = req.from ?? ZERO_ADDRESS;
    const nonce = req.nonce ?? (state.getAccount(from) ?? EMPTY_ACCOUNT).nonce;
    const remaining = header.gasLimit - gasUsed;
    let gas = req.gas ?? remaining;
    if (budget.gas !== undefined && gas > budget.gas) gas = budget.gas;
    // EIP-7825 binds only with validation (geth #32641): there a call without gas gets at most the cap.
    if (opts.validation && req.gas === undefined && isForkActive(fork, 'Osaka') && gas > MAX_TX_GAS) gas = MAX_TX_GAS;
    if (gasUsed + gas > header.gasLimit)
      throw new SimulateError('SIM_BLOCK_GAS_LIMIT', `block gas limit reached: ${gasUsed} >= ${header.gasLimit}`);
    const dynamic = req.gasPrice === undefined;
    // A call with an authorization list is an EIP-7702 transaction, as geth's ToTransaction makes it.
    const setCode = req.authorizationList !== undefined && dynamic;
    // With blob hashes, an EIP-4844 transaction: BLOBHASH sees them, the block counts their blob gas.
    const blob = !setCode && req.blobVersionedHashes !== undefined && dynamic;
    const tx = unsignedTransaction({
      type: setCode ? 4 : blob ? 3 : dynamic ? 2 : req.accessList !== undefined ? 1 : 0,
      ...(setCode ? { authorizationList: req.authorizationList } : {}),
      ...(blob ? { blobVersionedHashes: req.blobVersionedHashes, maxFeePerBlobGas: req.maxFeePerBlobGas ?? 0n } : {}),
      chainId: config.chainId,
      nonce,
      ...(dynamic
        ? { maxFeePerGas: req.maxFeePerGas ?? 0n, maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 0n }
        : { gasPrice: req.gasPrice }),
      gasLimit: gas,
      to: req.to,
      value: req.value ?? 0n,
      data: req.data ?? new Uint8Array(0),
      accessList: req.accessList ?? [],
    });
    const transfers = opts.traceTransfers ? transferLogs(host, (a) => state.getAccount(a)?.balance ?? 0n) : undefined;
    let r;
    try {
      // Without validation a blob fee cap of 0 is not checked against the blob base fee, as eth_call (geth).
      const callEnv = opts.validation ? env : callBlockEnv(req, env);
      r = await applyTransaction(host, evmBlock, state, callEnv, tx, from, header.gasLimit - gasUsed, {
        skipNonce: !opts.validation,
        noBaseFee: !opts.validation,
        noTxGasCap: !opts.validation,
        noFastPath: opts.traceTransfers,
      });
    } catch (err) {
      transfers?.detach();
      // geth's applyMessageWithEVM wording: "err: <reason> (supplied gas <the call's gas>)".
      if (err instanceof TxInvalidError)
        throw new SimulateError(invalidCode(err), `err: ${err.message.replace(/^invalid transaction: /, '')} (supplied gas ${gas})`);
      throw err;
    } finally {
      transfers?.detach();
    }
    gasUsed += r.gasUsed;
    blobGasUsed += blobGasOf(tx);
    if (budget.gas !== undefined) budget.gas -= r.gasUsed;
    const logs = transfers ? transfers.logs(r.status === 1) : r.logs;
    const call: SimCall = {
      status: r.status,
      gasUsed: r.gasUsed,
      // The larger of the gas drawn before the refund and the gas used: an EIP-7623 calldata floor can pass the first.
      maxUsedGas: r.gasBeforeRefund !== undefined && r.gasBeforeRefund > r.gasUsed ? r.gasBeforeRefund : r.gasUsed,
      returnData: r.returnValue,
      logs,
      ...(transfers ? { logOrder: transfers.order(r.status === 1) } : {}),
    };
    if (r.status === 0) {
      call.error =
        r.error === 'revert'
          ? { code: 3, message: revertMessage(r.returnValue), data: r.returnValue }
          : { code: -32015, message: r.error ?? 'execution failed' };
      // geth answers no return data for any failed call (ExecutionResult.Return is nil once Err is set); a revert's
      // bytes are in error.data only.
      call.returnData = new Uint8Array(0);
    }
    calls.push(call);
    txs.push(tx);
    senders.push(from);
    receipts.push({ type: tx.type, status: r.status, cumulativeGasUsed: gasUsed, logsBloom: logsBloom(r.logs), logs: r.logs });
  }
  const requests = await collectRequests(host, evmBlock, state, config, fork, receipts);
  const changes = state.changes();
  const update = roots.apply(changes, (key) => state.accountByKey(key));
  foldChanges(sim, changes);
  for (const [key, storageRoot] of update.storageRoots) {
    const a = sim.accountByKey(key);
    if (a) sim.putAccount(bytesOfKey(key), { ...a, storageRoot });
  }
  const sealed: Header = {
    ...header,
    stateRoot: update.root,
    transactionsRoot: transactionsRoot(txs),
    receiptsRoot: receiptsRoot(receipts),
    logsBloom: bloomUnion(receipts.map((x) => x.logsBloom)),
    gasUsed,
    ...(header.blobGasUsed !== undefined ? { blobGasUsed } : {}),
    ...(requests === undefined ? {} : { requestsHash: requestsHash(requests) }),
  };
  return { header: sealed, hash: headerHash(sealed), transactions: txs, senders, calls };
}

/**
 * eth_simulateV1's refusals of a movePrecompileToAddress: the spec's -38022 for a move onto itself, geth's -32000
 * (StateOverride.Apply) for a non-precompile and for a target another override names. Two moves onto one address are
 * no error, as geth (execution-apis ethSimulate-move-two-accounts-to-same-38023 answers a block): the later one runs
 * there.
 */
const SIM_MOVE_ERRORS: PrecompileMoveErrors = {
  notPrecompile: (a) => new SimulateError('SIM_SERVER_ERROR', `account ${toChecksumAddress(bytesOfKey(a.slice(2)))} is not a precompile`),
  toItself: (a) => new SimulateError('SIM_MOVE_TO_ITSELF', `account ${a} requested to be moved to itself`),
  targetOverridden: (a) =>
    new SimulateError('SIM_SERVER_ERROR', `account ${toChecksumAddress(bytesOfKey(a.slice(2)))} is already overridden`),
};

/** geth's simulator names a revert by its decoded Error(string) or Panic(uint256) reason; other data stays unnamed. */
function revertMessage(data: Uint8Array): string {
  const reason = revertReason(data);
  return reason === null ? 'execution reverted' : `execution reverted: ${reason}`;
}

/** ERC-7528 Transfer logs for ether moved (top call, CALL/CALLCODE/CREATE with value, SELFDESTRUCT), in order with the real logs. */
function transferLogs(
  host: EvmHost,
  balanceOf: (address: Uint8Array) => bigint,
): { detach(): void; logs(ok: boolean): Log[]; order(ok: boolean): { indexes: number[]; emitted: number } } {
  const frames: Log[][] = [[]];
  let top: Log[] = [];
  // Every log's place in emission order, kept or not (SimCall.logOrder).
  const place = new Map<Log, number>();
  const emitted = (l: Log): Log => {
    place.set(l, place.size);
    return l;
  };
  const synthetic = (from: Uint8Array, to: Uint8Array, value: bigint): Log =>
    emitted({ address: ETHER, topics: [TRANSFER_TOPIC, word(from), word(to)], data: word(value) });
  const detach = attachHooks(
    host.evm,
    {
      onEnter: (f: FrameEnter) => {
        if (f.type === 'SELFDESTRUCT') {
          if ((f.value ?? 0n) > 0n) frames[frames.length - 1].push(synthetic(f.from, f.to ?? ZERO_ADDRESS, f.value ?? 0n));
          frames.push([]);
          return;
        }
        const moves = f.type !== 'DELEGATECALL' && f.type !== 'STATICCALL' && (f.value ?? 0n) > 0n;
        const list: Log[] = [];
        if (moves && f.to !== undefined) list.push(synthetic(f.from, f.to, f.value as bigint));
        if (moves && f.to === undefined) {
          const l = synthetic(f.from, ZERO_ADDRESS, f.value as bigint) as Log & { pendingCreate?: boolean };
          l.pendingCreate = true;
          list.push(l);
        }
        frames.push(list);
      },
      onExit: (f: FrameExit) => {
        const mine = frames.pop() ?? [];
        for (const l of mine as (Log & { pendingCreate?: boolean })[]) {
          if (l.pendingCreate) {
            l.topics[2] = word(f.created ?? ZERO_ADDRESS);
            delete l.pendingCreate;
          }
        }
        if (f.error !== undefined) return;
        if (frames.length === 1 && f.depth === 0) top = mine;
        else frames[frames.length - 1].push(...mine);
      },
      onLog: (l: LogEvent) => frames[frames.length - 1].push(emitted({ address: l.address, topics: l.topics, data: l.data })),
    },
    // The SELFDESTRUCT frame's value is the contract's balance in the running state (0 here dropped its log).
    balanceOf,
  );
  return {
    detach,
    logs: (ok) => (ok ? top : []),
    order: (ok) => ({ indexes: ok ? top.map((l) => place.get(l) ?? 0) : [], emitted: place.size }),
  };
}
