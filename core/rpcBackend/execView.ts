/**
 * The RPC's ExecutionView: eth_call / estimateGas / createAccessList at a block, through core/exec/call. It runs the
 * EVM in the calling thread; the node calls it only inside an RPC execution pool worker (core/rpcPool), never on the
 * main loop. The request's signal is checked with the clock, so a cancelled request stops its EVM.
 */
import type { ChainConfig } from '../chain/forks.ts';
import {
  call,
  callEnvironmentAt,
  CallError,
  createAccessList,
  estimateGas,
  type CallOptions,
  type CallRequest as ExecCallRequest,
  type Interrupt,
} from '../exec/call/index.ts';
import { CoreError } from '../errors.ts';
import type { EvmHostPool } from '../exec/evmHostPool.ts';
import type { CallRequest, ExecOptions, ExecOutcome, ExecutionView } from '../rpc/interface.ts';
import type { AccessListEntry, HeaderData } from '../rpc/encode/types.ts';
import type { ChainReader } from '../store/index.ts';

/** The block a call runs on: only its number is read (the pool sends no more). */
type BlockAt = Pick<HeaderData, 'number'>;

export interface ExecViewOptions {
  /** Wall-clock budget of one call (geth --rpc.evmtimeout). */
  timeoutMs: number;
  /** The thread's idle EVMs (core/exec/evmHostPool.ts): a new EVM per call without it. */
  hosts?: EvmHostPool;
}

/** The RPC's call request as core/exec/call takes it. */
export function callRequestOf(req: CallRequest): ExecCallRequest {
  const out: ExecCallRequest = {};
  if (req.from) out.from = req.from;
  if (req.to) out.to = req.to;
  if (req.gas !== undefined) out.gas = req.gas;
  if (req.gasPrice !== undefined) out.gasPrice = req.gasPrice;
  if (req.maxFeePerGas !== undefined) out.maxFeePerGas = req.maxFeePerGas;
  if (req.maxPriorityFeePerGas !== undefined) out.maxPriorityFeePerGas = req.maxPriorityFeePerGas;
  if (req.value !== undefined) out.value = req.value;
  if (req.data) out.data = req.data;
  if (req.accessList) out.accessList = req.accessList;
  if (req.authorizationList) out.authorizationList = req.authorizationList;
  if (req.nonce !== undefined) out.nonce = req.nonce;
  if (req.blobVersionedHashes) out.blobVersionedHashes = req.blobVersionedHashes;
  if (req.maxFeePerBlobGas !== undefined) out.maxFeePerBlobGas = req.maxFeePerBlobGas;
  return out;
}

/**
 * CallError → the core errors the RPC maps (core/rpc/errors.ts CORE_ERRORS), worded as geth words them: the EVM
 * budget is -32000 "execution aborted (timeout = 5s)"; an interrupted call (its request was cancelled or passed its
 * deadline: the pool answered its client already) is a read stopped by its caller (-32002).
 */
function rethrow(err: unknown): never {
  if (err instanceof CallError) {
    if (err.code === 'CALL_REVERTED') throw new CoreError('EXECUTION_REVERTED', 'execution reverted', { data: err.meta.data });
    if (err.code === 'CALL_TIMEOUT') throw new CoreError('EVM_TIMEOUT', err.message);
    if (err.code === 'CALL_INTERRUPTED') throw new CoreError('STORE_READ_TIMEOUT', 'request timed out');
    throw new CoreError('VM_ERROR', err.message);
  }
  throw err;
}

/** What the EVM needs from the request's options: the gas cap, and a signal (or shared flag) it can be stopped by. */
export type ExecCallOptions = Pick<ExecOptions, 'gasCap' | 'overrides'> & { signal: Interrupt };

export class StoreExecutionView implements ExecutionView {
  constructor(
    private readonly reader: ChainReader,
    private readonly config: ChainConfig,
    private readonly options: ExecViewOptions,
  ) {}

  private env(at: BlockAt) {
    return callEnvironmentAt(this.reader, this.config, Number(at.number));
  }

  private limits(opts: ExecCallOptions): CallOptions {
    return {
      gasCap: opts.gasCap,
      timeoutMs: this.options.timeoutMs,
      interrupt: opts.signal,
      ...(opts.overrides !== undefined ? { overrides: opts.overrides } : {}),
      ...(this.options.hosts !== undefined ? { hosts: this.options.hosts } : {}),
    };
  }

  async call(req: CallRequest, at: BlockAt, opts: ExecCallOptions): Promise<ExecOutcome> {
    try {
      const r = await call(callRequestOf(req), this.env(at), this.limits(opts));
      if (r.reverted) return { status: 'revert', returnData: r.returnData, gasUsed: r.gasUsed };
      if (r.error) return { status: 'error', error: r.error, gasUsed: r.gasUsed };
      return { status: 'success', returnData: r.returnData, gasUsed: r.gasUsed };
    } catch (err) {
      rethrow(err);
    }
  }

  async estimateGas(
    req: CallRequest,
    at: BlockAt,
    opts: ExecCallOptions,
  ): Promise<{ status: 'success'; gas: bigint } | Exclude<ExecOutcome, { status: 'success' }>> {
    try {
      return { status: 'success', gas: await estimateGas(callRequestOf(req), this.env(at), this.limits(opts)) };
    } catch (err) {
      if (err instanceof CallError && err.code === 'CALL_REVERTED') {
        return { status: 'revert', returnData: (err.meta.data as Uint8Array | undefined) ?? new Uint8Array(0), gasUsed: 0n };
      }
      if (err instanceof CallError && err.code !== 'CALL_TIMEOUT' && err.code !== 'CALL_INTERRUPTED')
        return { status: 'error', error: err.message, gasUsed: 0n };
      rethrow(err);
    }
  }

  async createAccessList(
    req: CallRequest,
    at: BlockAt,
    opts: ExecCallOptions,
  ): Promise<{ accessList: AccessListEntry[]; gasUsed: bigint; error?: string }> {
    try {
      return await createAccessList(callRequestOf(req), this.env(at), this.limits(opts));
    } catch (err) {
      rethrow(err);
    }
  }
}
