/**
 * The tracing jobs (state in, answer out, under a deadline): re-execute a block's transactions on the state of its
 * parent (for a historical block, HistoricalState rebuilds it from the change sets) and trace one of them or all of
 * them; or trace a call on the state after a block. Everything runs on the fast loop (decision 0027): untraced
 * transactions with no hooks, traced ones with the tracer's hooks (hooks.ts), each on its own overlay so the prestate
 * tracer can see what it read. Written as plain functions over a StateReader so the RPC execution pool can run them unchanged.
 */
import type { Block } from '../../chain/block/index.ts';
import { forkAt, type ChainConfig } from '../../chain/forks.ts';
import type { Header } from '../../chain/header/index.ts';
import { EMPTY_ACCOUNT } from '../../state/account.ts';
import type { StateReader } from '../../state/interface.ts';
import { JournaledState } from '../../state/journaledState.ts';
import { keyOf } from '../../state/keys.ts';
import { applyTransaction } from '../applyTransaction.ts';
import { blockEnvOf } from '../block/executeBlock.ts';
import { preBlockSystemCalls } from '../block/systemCalls.ts';
import { CallError, type CallRequest } from '../call/types.ts';
import { callBlockEnv, callGas, messageOf } from '../call/runCall.ts';
import { TxInvalidError } from '../errors.ts';
import { type EvmHost, precompileAddresses } from '../evmHost.ts';
import { applyStateOverrides, CALL_MOVE_ERRORS, precompileMoves, type StateOverrideSet } from '../call/stateOverrides.ts';
import { EvmHostPool } from '../evmHostPool.ts';
import type { BlockEnv, ExecTx } from '../types.ts';
import { foldChanges } from './foldChanges.ts';
import { attachHooks, mergeHooks } from './hooks.ts';
import { prestateResult, RecordingReader } from './prestateTracer.ts';
import { parityStateDiff } from './stateDiff.ts';
import { VmTracer } from './vmTracer.ts';
import { createTracer, type ReplayResult, type TraceBlockOverrides, type TraceSpec, type TxContext } from './tracers.ts';

export interface TraceLimits {
  /** Epoch ms after which the job stops with TRACE_TIMEOUT. */
  deadline: number;
  /** Largest answer in bytes (struct logger text); past it TRACE_TOO_LARGE. */
  maxBytes: number;
  /** The thread's idle EVMs (core/exec/evmHostPool.ts), lent for the job; without it the job builds its own. */
  hosts?: EvmHostPool;
}

export class TraceError extends CallError {}

/** One traced transaction's answer (a JSON value, or a JsonText), or its error. */
export type TxTrace = { txHash: Uint8Array; result: unknown } | { txHash: Uint8Array; error: string };

/** Runs `tx` with `spec`'s tracer on an overlay of `base`, folds the overlay into `base`, returns the answer. */
async function traceOne(
  host: EvmHost,
  base: JournaledState,
  env: BlockEnv,
  tx: ExecTx,
  sender: Uint8Array,
  gasAvailable: bigint,
  spec: TraceSpec,
  limits: TraceLimits,
  context: TxContext,
  call: boolean,
): Promise<{ result: unknown; gasUsed: bigint; logs: number }> {
  const recorder = new RecordingReader(base);
  const state = new JournaledState(recorder);
  const evmBlock = host.bind(state, env);
  const tracer = createTracer(
    spec,
    {
      isPrecompile: (a) => host.precompiles.has(keyOf(a)),
      readSlot: (a, slot) => {
        const v = state.getStorage(a, hex32(slot));
        return v.length === 0 ? 0n : BigInt('0x' + Buffer.from(v).toString('hex'));
      },
      maxBytes: limits.maxBytes,
    },
    context,
  );
  const vm = spec.replay?.vmTrace ? new VmTracer((a) => state.getCode(a), limits.maxBytes) : undefined;
  const traced = vm ? mergeHooks(tracer.hooks, vm.hooks) : tracer.hooks;
  const hooks =
    tracer.prestate || spec.replay?.stateDiff
      ? { ...traced, onStorage: (a: Uint8Array, slot: Uint8Array) => recorder.touchSlot(a, slot) }
      : traced;
  const detach = attachHooks(
    host.evm,
    hooks,
    (a) => state.getAccount(a)?.balance ?? 0n,
    () => {
      if (Date.now() > limits.deadline) throw new TraceError('CALL_TIMEOUT', 'execution timeout');
    },
  );
  let r;
  try {
    r = await applyTransaction(host, evmBlock, state, env, tx, sender, gasAvailable, {
      noFastPath: true,
      ...(call ? { skipBalance: true, skipNonce: true, noBaseFee: true, noTxGasCap: true } : {}),
    });
  } finally {
    detach();
  }
  if (Date.now() > limits.deadline) throw new TraceError('CALL_TIMEOUT', 'execution timeout');
  const failed = r.status === 0;
  const returnValue = failed && r.error !== 'revert' ? new Uint8Array(0) : r.returnValue;
  const outcome = { gasLimit: tx.gasLimit, gasUsed: r.gasUsed, failed, returnValue, context };
  const result = tracer.prestate
    ? prestateResult(tracer.prestate, recorder, state, (a) =>
        keyOf(a.codeHash) === keyOf(EMPTY_ACCOUNT.codeHash) ? new Uint8Array(0) : base.codeByHash(a.codeHash),
      )
    : tracer.result(outcome);
  const answer: unknown = spec.replay
    ? ({
        trace: result,
        vmTrace: vm ? vm.result() : null,
        stateDiff: spec.replay.stateDiff ? parityStateDiff(recorder, state, (h) => state.codeByHash(h)) : null,
      } satisfies ReplayResult)
    : result;
  if (!call) foldChanges(base, state.changes());
  return { result: answer, gasUsed: r.gasUsed, logs: r.logs.length };
}

const hex32 = (v: bigint): Uint8Array => {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
};

/**
 * Traces the transactions of `block` (all, or only index `only`) on `parentState` (the state after its parent).
 * `blockHash` resolves BLOCKHASH; `hash` is the block's own hash (flatCallTracer's blockHash).
 */
export async function traceBlockTransactions(
  block: Block,
  hash: Uint8Array,
  senders: readonly Uint8Array[],
  parentState: StateReader,
  config: ChainConfig,
  blockHash: (n: bigint) => Uint8Array | undefined,
  spec: TraceSpec,
  limits: TraceLimits,
  only?: number,
): Promise<TxTrace[]> {
  const h = block.header;
  const fork = forkAt(config, Number(h.number), Number(h.timestamp));
  const env = blockEnvOf(block, { config, fork, blockHash });
  const state = new JournaledState(parentState);
  const hosts = limits.hosts ?? new EvmHostPool();
  const host = hosts.take(config.chainId, fork, state);
  const fastBlock = host.bind(state, env);
  // As geth's tracers: the beacon-root and block-hash system calls run (untraced) before the first transaction.
  await preBlockSystemCalls(host, fastBlock, state, fork, h);
  const out: TxTrace[] = [];
  let gasUsed = 0n;
  let logIndex = 0;
  for (const [i, tx] of block.transactions.entries()) {
    if (Date.now() > limits.deadline) throw new TraceError('CALL_TIMEOUT', 'execution timeout');
    const sender = senders[i] as Uint8Array;
    if (only !== undefined && i < only) {
      const r = await applyTransaction(host, fastBlock, state, env, tx, sender, env.gasLimit - gasUsed);
      gasUsed += r.gasUsed;
      logIndex += r.logs.length;
      continue;
    }
    try {
      const t = await traceOne(
        host,
        state,
        env,
        tx,
        sender,
        env.gasLimit - gasUsed,
        spec,
        limits,
        { blockHash: hash, blockNumber: h.number, txHash: tx.hash, txIndex: i, logIndex },
        false,
      );
      gasUsed += t.gasUsed;
      logIndex += t.logs;
      out.push({ txHash: tx.hash, result: t.result });
    } catch (err) {
      if (err instanceof TxInvalidError) {
        out.push({ txHash: tx.hash, error: err.message });
        continue;
      }
      throw err;
    }
    if (only !== undefined) break;
  }
  // Only a job that ended normally gives its EVM back (each traced transaction detached its hooks): one stopped by
  // an exception may be mid-frame.
  hosts.give(host);
  return out;
}

/** The header with geth's BlockOverrides applied (the call's block environment: NUMBER, TIMESTAMP, COINBASE, ...). */
function overridden(header: Header, o: TraceBlockOverrides): Header {
  const { rlp: _rlp, ...h } = header;
  return {
    ...h,
    ...(o.number !== undefined ? { number: o.number } : {}),
    ...(o.time !== undefined ? { timestamp: o.time } : {}),
    ...(o.gasLimit !== undefined ? { gasLimit: o.gasLimit } : {}),
    ...(o.feeRecipient !== undefined ? { coinbase: o.feeRecipient } : {}),
    ...(o.prevRandao !== undefined ? { mixHash: o.prevRandao } : {}),
    ...(o.baseFeePerGas !== undefined ? { baseFeePerGas: o.baseFeePerGas } : {}),
  };
}

/** debug_traceCall: `req` traced on `state` (after `header`'s block) in that block's environment. */
export async function traceCall(
  req: CallRequest,
  header: Header,
  headerHash: Uint8Array,
  state: StateReader,
  config: ChainConfig,
  blockHash: (n: bigint) => Uint8Array | undefined,
  spec: TraceSpec,
  limits: TraceLimits & { gasCap: bigint },
  overrides?: StateOverrideSet,
): Promise<unknown> {
  header = spec.block ? overridden(header, spec.block) : header;
  const fork = forkAt(config, Number(header.number), Number(header.timestamp));
  const base = new JournaledState(state);
  if (overrides !== undefined) applyStateOverrides(base, overrides);
  const gas = callGas(req, { gasCap: limits.gasCap });
  const blockEnv = callBlockEnv(req, blockEnvOf({ header, transactions: [], ommers: [] }, { config, fork, blockHash }));
  const env = { ...blockEnv, gasLimit: blockEnv.gasLimit > gas ? blockEnv.gasLimit : gas };
  const hosts = limits.hosts ?? new EvmHostPool();
  const host = hosts.take(
    config.chainId,
    fork,
    base,
    precompileMoves(overrides, precompileAddresses(config.chainId, fork), CALL_MOVE_ERRORS),
  );
  const { tx, sender } = messageOf(req, { header, config, state: base, blockHash }, gas);
  try {
    const t = await traceOne(
      host,
      base,
      env,
      tx,
      sender,
      gas,
      spec,
      limits,
      { blockHash: headerHash, blockNumber: header.number, txHash: undefined, txIndex: 0, logIndex: 0 },
      true,
    );
    hosts.give(host);
    return t.result;
  } catch (err) {
    if (err instanceof TxInvalidError) throw new TraceError('CALL_INVALID', err.message.replace(/^invalid transaction: /, ''));
    throw err;
  }
}
