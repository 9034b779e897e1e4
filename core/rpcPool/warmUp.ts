/**
 * What a pool worker runs before its first real job, so that job does not pay for loading and compiling code.
 *
 * - `warmUpCall`: one tiny eth_call at the stored head, before the worker says ready (loading the EVM takes hundreds
 *   of ms on a cold thread, more at nice 10 on a busy host).
 * - `tracingWarmUp`: after ready, on the threads the pool keeps up, traces and simulations of a throw-away program
 *   placed by state overrides on the head state (nothing is written). A fresh thread's first callTracer traces of a
 *   200-call transaction cost 60-110 ms of its CPU plus 70-150 ms of V8's compiler threads each for about seven
 *   calls, against 15-25 ms once warm (issue #15); the work goes to the first idle thread in the pool's list, so those
 *   calls were every user's first traces. The steps are small (one job each, a few ms warm) and the worker runs
 *   them only while no job waits, so a real job waits behind at most one step.
 */
import { ethereumHeaderCodec } from '../chain/header/index.ts';
import { hexToBytes } from '../primitives/hex.ts';
import { decodeRlp } from '../primitives/rlp.ts';
import type { HeaderData } from '../rpc/encode/types.ts';
import type { CallRequest, StateOverrides } from '../rpc/interface.ts';
import { simulatePayload, type SimulatePayload } from '../rpc/simulateParams.ts';
import { headerData } from '../rpcBackend/convert.ts';
import type { JobContext } from './jobs.ts';

/** The stored head as a job names it, or undefined on an empty store. */
function headAt(ctx: JobContext): HeaderData | undefined {
  const head = ctx.reader.getHead();
  const row = head && ctx.reader.getHeaderByHash(head.hash);
  return row ? headerData(ethereumHeaderCodec.decode(decodeRlp(row.headerRlp), row.headerRlp), row.hash) : undefined;
}

/** Runs one tiny eth_call at the stored head (before the worker says ready). */
export async function warmUpCall(ctx: JobContext): Promise<void> {
  const at = headAt(ctx);
  if (!at) return;
  await ctx.reader
    .readSnapshot(() => ctx.views.exec(1_000).call({ to: new Uint8Array(20) }, at, { gasCap: 100_000n, signal: ctx.interrupt }))
    // A warm-up that fails (an odd chain) only means a colder first job.
    .catch(() => undefined);
}

const LOOP = '0x00000000000000000000000000000000000a11ce';
const CHILD = '0x000000000000000000000000000000000000b0b0';
const SENDER = '0x00000000000000000000000000000000000f0e00';

/**
 * The loop: n = calldataload(0) rounds of the frame kinds a contract's calls take (issue #15's Tracee.nested and
 * many): CALL CHILD with 1 wei and 32 bytes (stores, logs, returns), CALL CHILD with no data (reverts with 4 bytes),
 * STATICCALL CHILD with 10,000 gas (fails at its SSTORE), DELEGATECALL CHILD, STATICCALL the sha256 precompile.
 *   PUSH1 0 CALLDATALOAD; loop: JUMPDEST DUP1 ISZERO PUSH2 end JUMPI; DUP1 PUSH1 0 MSTORE;
 *   (32 0 32 0 1 CHILD GAS CALL POP) (0 0 0 0 0 CHILD GAS CALL POP) (32 0 32 0 CHILD 10000 STATICCALL POP)
 *   (32 0 32 0 CHILD GAS DELEGATECALL POP) (32 32 32 0 2 GAS STATICCALL POP); PUSH1 1 SWAP1 SUB PUSH2 loop JUMP;
 *   end: JUMPDEST STOP
 */
const LOOP_CODE =
  '0x6000355b80156100a957806000526020600060206000600173000000000000000000000000000000000000b0b05af150600060006000600060' +
  '0073000000000000000000000000000000000000b0b05af150602060006020600073000000000000000000000000000000000000b0b0612710fa50' +
  '602060006020600073000000000000000000000000000000000000b0b05af450602060206020600060025afa5060019003610003565b00';
/**
 * The child: with no calldata, REVERT(0, 4); else x = sload(0) + calldataload(0) + 1, SSTORE(0, x), LOG1 of x with
 * topic 7, RETURN x.
 *   CALLDATASIZE PUSH2 store JUMPI; PUSH1 4 PUSH1 0 REVERT; store: JUMPDEST PUSH1 0 CALLDATALOAD PUSH1 0 SLOAD ADD
 *   PUSH1 1 ADD DUP1 PUSH1 0 SSTORE PUSH1 0 MSTORE PUSH1 7 PUSH1 32 PUSH1 0 LOG1 PUSH1 32 PUSH1 0 RETURN
 */
const CHILD_CODE = '0x3661000a5760046000fd5b6000356000540160010180600055600052600760206000a160206000f3';

const word = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;

/** Rounds of the loop per traced call (5 frames each) and per simulated call, and simulated calls per block. */
const TRACE_ROUNDS = 40;
const SIMULATE_ROUNDS = 1;
const SIMULATE_CALLS = 10;
/**
 * Warm-up steps. On the first thread they cost ~0.8 s of CPU in all (most of it compiling, so fewer save little)
 * and take a trace's CPU from 60-110 ms to 15-30 ms by the second real call.
 */
export const TRACING_WARM_STEPS = 10;

const overrides: StateOverrides = new Map([
  [LOOP, { balance: 10n ** 18n, code: hexToBytes(LOOP_CODE) }],
  [CHILD, { code: hexToBytes(CHILD_CODE) }],
]);

const simulationPayload = (): SimulatePayload =>
  simulatePayload({
    blockStateCalls: [
      {
        stateOverrides: { [LOOP]: { balance: '0xde0b6b3a7640000', code: LOOP_CODE }, [CHILD]: { code: CHILD_CODE } },
        calls: Array.from({ length: SIMULATE_CALLS }, () => ({ from: SENDER, to: LOOP, data: word(SIMULATE_ROUNDS) })),
      },
    ],
  });

/**
 * One warm-up step at `at`: a callTracer trace of TRACE_ROUNDS rounds of the loop, then an eth_simulateV1 of
 * SIMULATE_CALLS calls of it; their answers (JSON text) for tests.
 */
export async function warmUpTracingOnce(ctx: JobContext, at: HeaderData): Promise<{ trace: string; simulation: string }> {
  const req: CallRequest = { from: hexToBytes(SENDER), to: hexToBytes(LOOP), data: hexToBytes(word(TRACE_ROUNDS)), gas: 30_000_000n };
  const opts = { tracer: 'callTracer', timeoutMs: 5_000, logger: {} };
  const trace = await ctx.views.trace({ maxBytes: 25_000_000, gasCap: 50_000_000n }).traceCall(req, at, opts, overrides);
  const simulation = await ctx.views.simulate({ gasCap: 50_000_000n, timeoutMs: 5_000 }).simulate(simulationPayload(), at);
  return { trace, simulation };
}

/**
 * The tracing warm-up as TRACING_WARM_STEPS steps at the stored head, each in its own read snapshot; a step answers
 * false once one has failed (an odd chain: the first real jobs are only colder).
 */
export function tracingWarmUp(ctx: JobContext): (() => Promise<boolean>)[] {
  let failed = false;
  const step = async (): Promise<boolean> => {
    if (failed) return false;
    try {
      await ctx.reader.readSnapshot(() => {
        const at = headAt(ctx);
        if (!at) throw new Error('no head');
        return warmUpTracingOnce(ctx, at);
      });
      return true;
    } catch {
      failed = true;
      return false;
    }
  };
  return Array.from({ length: TRACING_WARM_STEPS }, () => step);
}

/** For tests: the warm-up program and where it runs. */
export const WARM_UP_PROGRAM = {
  loop: LOOP,
  child: CHILD,
  loopCode: LOOP_CODE,
  childCode: CHILD_CODE,
  traceRounds: TRACE_ROUNDS,
  simulateCalls: SIMULATE_CALLS,
} as const;
