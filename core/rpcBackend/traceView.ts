/**
 * The RPC's TraceView over the store: finds the block (and the transaction's index), opens the state after its parent
 * (HistoricalState: rebuilt from the change sets for any served block) and runs the tracing job of core/exec/trace
 * under the request's deadline (`timeout`, geth's 5 s default) and the answer's byte cap. The job is a plain function
 * over a StateReader: the RPC execution pool can run it in a worker with its own read-only connection.
 */
import { decodeBlock } from '../chain/block/index.ts';
import type { ChainConfig } from '../chain/forks.ts';
import { recoverSender } from '../chain/transaction/index.ts';
import { XoneError } from '../errors.ts';
import type { EvmHostPool } from '../exec/evmHostPool.ts';
import { TRACER_NAMES, JsonText, type TraceSpec, type TracerName } from '../exec/trace/tracers.ts';
import { TraceError, traceBlockTransactions, traceCall, type TxTrace } from '../exec/trace/traceBlock.ts';
import { TraceTooLarge } from '../exec/trace/structLogger.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { RpcError } from '../rpc/errors.ts';
import type { CallRequest, StateOverrides, TraceFilterQuery, TraceOptions, TraceView } from '../rpc/interface.ts';
import type { HeaderData } from '../rpc/encode/types.ts';
import { HistoricalState } from '../state/store/history.ts';
import type { ChainReader } from '../store/index.ts';
import type { StoreChainView } from './chainView.ts';
import { callRequestOf } from './execView.ts';
import { filterTraces } from './traceFilter.ts';

export interface TraceViewOptions {
  /** Largest answer (bytes of JSON text). */
  maxBytes: number;
  gasCap: bigint;
  /** The thread's idle EVMs (core/exec/evmHostPool.ts): a new EVM per request without it. */
  hosts?: EvmHostPool;
}

function specOf(opts: TraceOptions): TraceSpec {
  if (opts.tracer !== undefined && !(TRACER_NAMES as readonly string[]).includes(opts.tracer))
    throw new RpcError(
      'SERVER_ERROR',
      `tracer ${JSON.stringify(opts.tracer)} not found: built-in tracers are ${TRACER_NAMES.join(', ')} (JavaScript tracers are not supported)`,
    );
  return {
    ...(opts.tracer !== undefined ? { tracer: opts.tracer as TracerName } : {}),
    ...(opts.tracerConfig ? { tracerConfig: opts.tracerConfig } : {}),
    logger: opts.logger,
    ...(opts.blockOverrides ? { block: opts.blockOverrides } : {}),
    ...(opts.replay && opts.tracer === 'flatCallTracer' ? { replay: opts.replay } : {}),
  };
}

const text = (result: unknown): string => (result instanceof JsonText ? result.text : JSON.stringify(result));

function wireError(err: unknown): never {
  if (err instanceof TraceTooLarge) throw new RpcError('RESPONSE_TOO_LARGE', err.message);
  if (err instanceof TraceError && err.code === 'CALL_TIMEOUT') throw new RpcError('SERVER_ERROR', 'execution timeout');
  if (err instanceof TraceError) throw new RpcError('SERVER_ERROR', err.message);
  if (err instanceof XoneError && err.code === 'STATE_UNAVAILABLE')
    throw new RpcError('SERVER_ERROR', `required historical state unavailable: ${err.message}`);
  throw err;
}

export class StoreTraceView implements TraceView {
  constructor(
    private readonly reader: ChainReader,
    private readonly chain: StoreChainView,
    private readonly config: ChainConfig,
    private readonly options: TraceViewOptions,
  ) {}

  private limits(opts: TraceOptions) {
    return {
      deadline: Date.now() + opts.timeoutMs,
      maxBytes: this.options.maxBytes,
      ...(this.options.hosts !== undefined ? { hosts: this.options.hosts } : {}),
    };
  }

  private readonly blockHash = (n: bigint): Uint8Array | undefined => this.reader.getCanonicalHash(Number(n));

  private parentState(number: bigint): HistoricalState {
    if (number === 0n) throw new RpcError('SERVER_ERROR', 'genesis is not traceable');
    return new HistoricalState(this.reader, Number(number - 1n));
  }

  private capped(out: string): string {
    if (out.length > this.options.maxBytes) throw new RpcError('RESPONSE_TOO_LARGE', `trace result exceeds ${this.options.maxBytes} bytes`);
    return out;
  }

  async traceTransaction(hash: Uint8Array, opts: TraceOptions): Promise<string | null> {
    const spec = specOf(opts);
    const loc = this.reader.getTxLocation(hash);
    if (!loc) return null;
    const d = this.chain.blockWithSenders(loc.blockHash);
    if (!d) return null;
    try {
      const [t] = await traceBlockTransactions(
        d.block,
        d.hash,
        d.senders,
        this.parentState(d.block.header.number),
        this.config,
        this.blockHash,
        spec,
        this.limits(opts),
        loc.txIndex,
      );
      if (!t) return null;
      if ('error' in t) throw new RpcError('SERVER_ERROR', t.error);
      return this.capped(text(t.result));
    } catch (err) {
      wireError(err);
    }
  }

  async traceBlock(blockHash: Uint8Array, opts: TraceOptions): Promise<string> {
    const spec = specOf(opts);
    const d = this.chain.blockWithSenders(blockHash);
    if (!d) throw new RpcError('SERVER_ERROR', `block ${bytesToHex(blockHash)} not found`);
    try {
      return this.capped(
        blockText(
          await traceBlockTransactions(
            d.block,
            d.hash,
            d.senders,
            this.parentState(d.block.header.number),
            this.config,
            this.blockHash,
            spec,
            this.limits(opts),
          ),
        ),
      );
    } catch (err) {
      wireError(err);
    }
  }

  async traceBlockRlp(rlp: Uint8Array, opts: TraceOptions): Promise<string> {
    const spec = specOf(opts);
    let block;
    try {
      block = decodeBlock(rlp);
    } catch (err) {
      throw new RpcError('SERVER_ERROR', `could not decode block: ${(err as Error).message}`);
    }
    const parent = this.reader.getHeaderByHash(block.header.parentHash);
    if (!parent) throw new RpcError('SERVER_ERROR', `parent ${bytesToHex(block.header.parentHash)} not found`);
    const senders = block.transactions.map((tx) => recoverSender(tx));
    try {
      const hash = (await import('../chain/header/index.ts')).headerHash(block.header);
      return this.capped(
        blockText(
          await traceBlockTransactions(
            block,
            hash,
            senders,
            this.parentState(block.header.number),
            this.config,
            this.blockHash,
            spec,
            this.limits(opts),
          ),
        ),
      );
    } catch (err) {
      wireError(err);
    }
  }

  /** trace_filter; `aborted`: the job's stop flag (the pool's interrupt), checked between blocks. */
  traceFilter(query: TraceFilterQuery, _scope?: unknown, aborted: () => boolean = () => false): Promise<string> {
    return filterTraces({ traceBlock: (h, o) => this.traceBlock(h, o), canonicalHash: this.blockHash, aborted }, query);
  }

  async traceCall(req: CallRequest, at: HeaderData, opts: TraceOptions, overrides?: StateOverrides): Promise<string> {
    const spec = specOf(opts);
    const row = this.reader.getHeaderByNumber(Number(at.number));
    const d = row && this.chain.blockWithSenders(row.hash);
    if (!d) throw new RpcError('SERVER_ERROR', 'header not found');
    try {
      const result = await traceCall(
        callRequestOf(req),
        d.block.header,
        d.hash,
        new HistoricalState(this.reader, Number(at.number)),
        this.config,
        this.blockHash,
        spec,
        { ...this.limits(opts), gasCap: this.options.gasCap },
        overrides,
      );
      return this.capped(text(result));
    } catch (err) {
      wireError(err);
    }
  }
}

/** geth's block answer: [{txHash, result} | {txHash, error}]. */
function blockText(traces: TxTrace[]): string {
  return `[${traces
    .map((t) =>
      'error' in t
        ? JSON.stringify({ txHash: bytesToHex(t.txHash), error: t.error })
        : `{"txHash":"${bytesToHex(t.txHash)}","result":${text(t.result)}}`,
    )
    .join(',')}]`;
}
