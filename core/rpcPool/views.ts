/**
 * The RPC interfaces (core/rpc/interface.ts) served through an executor: each method becomes one job of the table in
 * jobs.ts, run under the request's scope (fairness key, deadline, cancellation) and --rpc.evmtimeout.
 */
import { callTimeout } from '../exec/call/timeout.ts';
import { CoreError } from '../errors.ts';
import type { CallRequest, ExecOptions, ExecutionView } from '../rpc/interface.ts';
import type { HeaderData } from '../rpc/encode/types.ts';
import type { JobScope, RpcExecutor } from './types.ts';

/** eth_call / estimateGas / createAccessList as pool jobs with a budget of `evmTimeoutMs` each. */
export function pooledExecutionView(executor: RpcExecutor, evmTimeoutMs: number): ExecutionView {
  const scope = (opts: ExecOptions): JobScope => ({
    client: opts.client,
    deadline: opts.deadline,
    signal: opts.signal,
    budgetMs: evmTimeoutMs,
    // geth's answer for a call stopped by --rpc.evmtimeout (-32000), also when the pool had to stop it by force.
    budgetError: () => new CoreError('EVM_TIMEOUT', callTimeout({ timeoutMs: evmTimeoutMs }).message),
  });
  const params = (req: CallRequest, at: HeaderData, opts: ExecOptions) => ({ req, at, gasCap: opts.gasCap });
  return {
    call: (req, at, opts) => executor.run('call', params(req, at, opts), scope(opts)),
    estimateGas: (req, at, opts) => executor.run('estimateGas', params(req, at, opts), scope(opts)),
    createAccessList: (req, at, opts) => executor.run('createAccessList', params(req, at, opts), scope(opts)),
  };
}
