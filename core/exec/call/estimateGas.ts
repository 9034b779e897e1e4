/**
 * eth_estimateGas: the smallest gas limit with which the message succeeds, by binary search between the intrinsic
 * gas and the cap (geth's algorithm: one run at the upper bound, then an optimistic guess from the gas it used, then
 * bisection). Before bisecting, the gas the run at the upper bound drew (before its refund) is tried, and one less:
 * a message without calls that need the 63/64 reserve succeeds at exactly that, so the answer takes 3 runs instead
 * of ~15 and is the same smallest limit the bisection finds (the search assumes success is monotonic in the limit). A message that fails even at the upper bound reports why: its revert data, the allowance when it ran out of gas, or its own EVM error (geth's words); one
 * that no gas limit makes valid (a fee cap below the base fee, ...) reports that.
 */
import { EVMError } from '@ethereumjs/evm';
import { forkAt } from '../../chain/forks.ts';
import { intrinsicGas } from '../../chain/transaction/index.ts';
import { estimateGasBound, execute, messageOf, withDeadline } from './runCall.ts';
import { CallError, type CallEnvironment, type CallOptions, type CallRequest } from './types.ts';

/** Invalid-message codes that a higher gas limit cures. */
const GAS_SHORTFALLS = new Set(['TX_INTRINSIC_GAS', 'TX_FLOOR_DATA_GAS']);

/** The EVM's error text for a frame that ran out of gas (the one failure a higher limit can cure). */
const OUT_OF_GAS: string = EVMError.errorMessages.OUT_OF_GAS;

/** One run of the message at a gas limit. `outOfGas`: it failed for want of gas (execution or intrinsic). */
interface Run {
  ok: boolean;
  gasUsed: bigint;
  drawn: bigint;
  error?: string;
  outOfGas?: boolean;
  data?: Uint8Array;
}

/** Estimated gas of `req` at the environment's block. Throws CallError (CALL_REVERTED with `meta.data`, …). */
export async function estimateGas(req: CallRequest, env: CallEnvironment, options: CallOptions = {}): Promise<bigint> {
  const opts = withDeadline(options);
  const fork = forkAt(env.config, Number(env.header.number), Number(env.header.timestamp));
  let hi = estimateGasBound(req, opts, env);
  if (req.gas === undefined && env.header.gasLimit < hi) hi = env.header.gasLimit;
  const { tx } = messageOf(req, env, hi);
  let lo = intrinsicGas(tx, fork) - 1n;
  const ok = async (gas: bigint): Promise<Run> => {
    try {
      const r = await execute(req, env, gas, opts);
      const outOfGas = r.error === OUT_OF_GAS;
      return {
        ok: r.status === 1,
        gasUsed: r.gasUsed,
        drawn: r.gasBeforeRefund ?? r.gasUsed,
        error: r.error,
        outOfGas,
        data: r.returnValue,
      };
    } catch (err) {
      // Too little gas for the intrinsic or floor cost is a failure the search raises the limit past; any other
      // invalid message (fee cap below the base fee, tip above the fee cap, ...) fails at every limit and is the
      // answer, in geth's words (its estimator bails out with the consensus error too).
      if (err instanceof CallError && err.code === 'CALL_INVALID' && GAS_SHORTFALLS.has(String(err.meta.txCode)))
        return { ok: false, gasUsed: 0n, drawn: 0n, error: err.message, outOfGas: true };
      throw err;
    }
  };
  const top = await ok(hi);
  if (!top.ok) {
    if (top.error === 'revert') throw new CallError('CALL_REVERTED', 'execution reverted', { data: top.data });
    // As geth's estimator: only running out of gas (or short of the intrinsic gas) at the upper bound is the
    // allowance's fault; any other failure (a precompile's bad input, an invalid opcode, ...) fails at every limit
    // and is answered in its own words, alone.
    if (top.error !== undefined && !top.outOfGas) throw new CallError('CALL_FAILED', top.error);
    throw new CallError('CALL_GAS_EXCEEDS_ALLOWANCE', `gas required exceeds allowance (${hi})`, { allowance: hi.toString() });
  }
  // Plain transfers to accounts without code need exactly the intrinsic gas.
  if (top.gasUsed === lo + 1n) {
    const exact = await ok(top.gasUsed);
    if (exact.ok) return top.gasUsed;
  }
  if (top.gasUsed - 1n > lo) lo = top.gasUsed - 1n;
  // The gas drawn at the upper bound is enough when no call kept back its 1/64: then it is the answer if one less fails.
  if (top.drawn > lo && top.drawn < hi) {
    if ((await ok(top.drawn)).ok) {
      hi = top.drawn;
      if (!(await ok(top.drawn - 1n)).ok) return hi;
      hi = top.drawn - 1n; // one less works too (a refund or gas check that the drawn figure overstates): bisect below
    } else lo = top.drawn;
  }
  // Optimistic guess: gas used plus the call stipend headroom and the 63/64 rule usually suffices.
  const guess = ((top.gasUsed + 2300n) * 64n) / 63n;
  if (guess < hi && (await ok(guess)).ok) hi = guess;
  while (lo + 1n < hi) {
    const mid = (lo + hi) / 2n;
    if ((await ok(mid)).ok) hi = mid;
    else lo = mid;
  }
  return hi;
}
