/**
 * eth_call: runs a message against the state at a block without committing anything, with a gas cap and a wall
 * clock timeout. Each call gets its own working state; its EVM is a new one, or one lent by the thread's EvmHostPool
 * (`opts.hosts`) for this call only, so concurrent calls never share a journal.
 */
import { forkAt, isForkActive } from '../../chain/forks.ts';
import { MAX_TX_GAS } from '../../chain/transaction/index.ts';
import { EMPTY_ACCOUNT } from '../../state/account.ts';
import { JournaledState } from '../../state/journaledState.ts';
import { applyTransaction, type AppliedTx, type ApplyTxOptions } from '../applyTransaction.ts';
import { TxInvalidError } from '../errors.ts';
import { EvmHost, precompileAddresses } from '../evmHost.ts';
import { watchSteps } from '../evm/fastInterpreter.ts';
import { blockEnvOf } from '../block/executeBlock.ts';
import { applyStateOverrides, CALL_MOVE_ERRORS, precompileMoves } from './stateOverrides.ts';
import type { ExecTx } from '../types.ts';
import { CallError, defaultCallOptions, type CallEnvironment, type CallOptions, type CallRequest, type CallResult } from './types.ts';
import { callTimeout } from './timeout.ts';

const ZERO_ADDRESS = new Uint8Array(20);
/** Steps between clock reads in the timeout check. */
const STEPS_PER_CLOCK_CHECK = 1024;

/** Builds the message of a call: unspecified fees are zero (no base-fee check), gas defaults to the cap. */
export function messageOf(req: CallRequest, env: CallEnvironment, gas: bigint): { tx: ExecTx; sender: Uint8Array } {
  const sender = req.from ?? ZERO_ADDRESS;
  const dynamic = req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined;
  const maxFee = req.maxFeePerGas ?? req.gasPrice ?? 0n;
  const tip = req.maxPriorityFeePerGas ?? (dynamic ? 0n : maxFee);
  const nonce = req.nonce ?? (env.state.getAccount(sender) ?? EMPTY_ACCOUNT).nonce;
  return {
    tx: {
      ...(req.authorizationList !== undefined ? { authorizationList: req.authorizationList } : {}),
      ...(req.blobVersionedHashes !== undefined
        ? { blobVersionedHashes: req.blobVersionedHashes, maxFeePerBlobGas: req.maxFeePerBlobGas ?? 0n }
        : {}),
      type:
        req.authorizationList !== undefined
          ? 4
          : req.blobVersionedHashes !== undefined
            ? 3
            : dynamic
              ? 2
              : req.accessList !== undefined
                ? 1
                : 0,
      nonce,
      gasLimit: gas,
      gasPrice: maxFee,
      maxFeePerGas: maxFee,
      maxPriorityFeePerGas: tip,
      to: req.to,
      value: req.value ?? 0n,
      data: req.data ?? new Uint8Array(0),
      accessList: req.accessList ?? [],
    },
    sender,
  };
}

/**
 * The gas limit a call runs with: the request's, bounded by the cap (the cap when absent). A call is not a
 * transaction: EIP-7825's per-transaction cap does not bound it (execute passes noTxGasCap), as in geth.
 */
export function callGas(req: CallRequest, opts: CallOptions = {}): bigint {
  const cap = opts.gasCap ?? defaultCallOptions.gasCap;
  return req.gas === undefined || req.gas > cap ? cap : req.gas;
}

/**
 * The upper bound of a gas estimate: the call's gas, and under Osaka at most EIP-7825's cap, since the estimate is
 * for a transaction that must fit under it (geth's gas estimator does the same).
 */
export function estimateGasBound(req: CallRequest, opts: CallOptions, env: Pick<CallEnvironment, 'config' | 'header'>): bigint {
  const gas = callGas(req, opts);
  if (gas <= MAX_TX_GAS) return gas;
  const fork = forkAt(env.config, Number(env.header.number), Number(env.header.timestamp));
  return isForkActive(fork, 'Osaka') ? MAX_TX_GAS : gas;
}

/**
 * geth's eth_call blob rule: a blob fee cap of 0 (also when blob hashes come without one) runs the call at a blob
 * base fee of 0, so neither the fee check nor BLOBBASEFEE asks a caller for blob gas; a cap above 0 is checked.
 */
export function callBlockEnv<E extends { blobBaseFee?: bigint }>(
  req: Pick<CallRequest, 'blobVersionedHashes' | 'maxFeePerBlobGas'>,
  env: E,
): E {
  const zeroCap = req.maxFeePerBlobGas === 0n || (req.maxFeePerBlobGas === undefined && req.blobVersionedHashes !== undefined);
  return zeroCap && env.blobBaseFee !== undefined ? { ...env, blobBaseFee: 0n } : env;
}

/** Runs one message; the low-level step shared by call, estimateGas and createAccessList. */
export async function execute(
  req: CallRequest,
  env: CallEnvironment,
  gas: bigint,
  opts: CallOptions,
  extra: ApplyTxOptions = {},
): Promise<AppliedTx> {
  const h = env.header;
  const fork = forkAt(env.config, Number(h.number), Number(h.timestamp));
  const state = new JournaledState(env.state);
  // geth applies the overrides to the call's state first: the default nonce (a created contract's address) sees them.
  if (opts.overrides !== undefined) applyStateOverrides(state, opts.overrides);
  const moves = precompileMoves(opts.overrides, precompileAddresses(env.config.chainId, fork), CALL_MOVE_ERRORS);
  const host = opts.hosts
    ? opts.hosts.take(env.config.chainId, fork, state, moves)
    : new EvmHost(env.config.chainId, fork, state, { precompileMoves: moves });
  const { deadline } = withDeadline(opts);
  const interrupt = opts.interrupt;
  watchSteps(host.evm, STEPS_PER_CLOCK_CHECK, () => {
    if (interrupt?.aborted) throw new CallError('CALL_INTERRUPTED', 'execution interrupted');
    if (performance.now() > deadline) throw callTimeout(opts);
  });
  const blockEnv = callBlockEnv(
    req,
    blockEnvOf({ header: h, transactions: [], ommers: [] }, { config: env.config, fork, blockHash: env.blockHash }),
  );
  // Gas beyond the block limit is allowed for calls: the cap is the bound, as in geth.
  const evmBlock = host.bind(state, { ...blockEnv, gasLimit: blockEnv.gasLimit > gas ? blockEnv.gasLimit : gas });
  const { tx, sender } = messageOf(req, { ...env, state }, gas);
  try {
    const applied = await applyTransaction(host, evmBlock, state, blockEnv, tx, sender, gas, {
      skipBalance: true,
      skipNonce: true,
      noBaseFee: true,
      noTxGasCap: true,
      ...extra,
    });
    // Only a call that ended normally gives its host back (one stopped by an exception may be mid-frame).
    opts.hosts?.give(host);
    return applied;
  } catch (err) {
    if (err instanceof TxInvalidError)
      throw new CallError('CALL_INVALID', err.message.replace(/^invalid transaction: /, ''), { ...err.meta, txCode: err.code });
    throw err;
  }
}

/** `opts` with an absolute deadline: the given one, or now + timeoutMs (every run of one request shares it). */
export function withDeadline(opts: CallOptions): CallOptions & { deadline: number } {
  if (opts.deadline !== undefined) return opts as CallOptions & { deadline: number };
  return { ...opts, deadline: performance.now() + (opts.timeoutMs ?? defaultCallOptions.timeoutMs) };
}

/** eth_call: the return data (or revert data) of `req` at the environment's block. */
export async function call(req: CallRequest, env: CallEnvironment, opts: CallOptions = {}): Promise<CallResult> {
  const r = await execute(req, env, callGas(req, opts), withDeadline(opts));
  const reverted = r.error === 'revert';
  return { returnData: r.returnValue, gasUsed: r.gasUsed, reverted, error: r.error };
}
