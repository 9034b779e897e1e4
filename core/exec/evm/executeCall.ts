/**
 * `EVM._executeCall` (entering a CALL-family frame) for EVMs on the fast interpreter (decision 0027), on the forks
 * where none of the EIPs it has extra steps for is active: Verkle / binary-tree witnesses (6800, 7864), Amsterdam's
 * top-frame charges, block access lists and transfer logs (2780, 7928, 7708). Same steps in the same order as the
 * library's otherwise, minus one cost: the library hands the frame a copy of the message made with two object
 * spreads (`{ ...{ codeAddress }, ...message, gasLimit }`), which V8 copies property by property in its slow path
 * (~10 µs per frame on a quiet host: a tenth of a 200-call callTracer trace, 6 % of an eth_simulateV1 of 10 calls).
 * Our frame runner (runFrame.ts) only reads the message, so it gets the message itself. Elsewhere (debug mode, the profiler, those EIPs, the library's own
 * frame runner) the library's `_executeCall` runs.
 */
import { Account, type Address } from '@ethereumjs/util';

/** The EIPs whose steps only the library's `_executeCall` has. */
const LIBRARY_ONLY_EIPS = [6800, 7864, 2780, 7928, 7708] as const;

/** The `Message` fields read here (@ethereumjs/evm message.ts). */
interface CallMessage {
  to: Address;
  caller: Address;
  gasLimit: bigint;
  data: Uint8Array;
  depth: number;
  code?: Uint8Array | ((...args: unknown[]) => unknown);
  codeAddress: Address;
  isCompiled: boolean;
  delegatecall: boolean;
  gasRefund: bigint;
}

interface ExecResult {
  executionGasUsed: bigint;
  gasRefund?: bigint;
}

/** The `EVM` members a call frame's entry uses. */
interface CallEvm {
  DEBUG: boolean;
  common: { isActivatedEIP(eip: number): boolean };
  _optsCached: { profiler?: { enabled?: boolean } };
  stateManager: { getAccount(a: Address): Promise<Account | undefined> };
  runInterpreter(message: unknown, opts: { initialLogs?: unknown[] }): Promise<ExecResult>;
  runPrecompile(code: unknown, data: Uint8Array, gasLimit: bigint): Promise<ExecResult>;
  postMessageCleanup(): void;
  _reduceSenderBalance(account: Account, message: CallMessage): Promise<void>;
  _addToBalance(account: Account, message: CallMessage): Promise<void>;
  _loadCode(message: CallMessage): Promise<void>;
}

type ExecuteCall = (this: CallEvm, message: CallMessage) => Promise<{ execResult: ExecResult }>;

/**
 * The replacement for `library` (the prototype's `_executeCall`) on one EVM whose `runInterpreter` is `frameRunner`.
 */
export function makeExecuteCall(library: ExecuteCall, frameRunner: unknown): ExecuteCall {
  return async function executeCall(this: CallEvm, message: CallMessage): Promise<{ execResult: ExecResult }> {
    if (
      this.DEBUG ||
      this._optsCached.profiler?.enabled === true ||
      this.runInterpreter !== frameRunner ||
      LIBRARY_ONLY_EIPS.some((eip) => this.common.isActivatedEIP(eip))
    ) {
      return library.call(this, message);
    }
    // From here on, the library's steps for these forks (evm.ts `_executeCall`), in its order.
    const gasLimit = message.gasLimit;
    const account = (await this.stateManager.getAccount(message.caller)) ?? new Account();
    let errorMessage: unknown;
    if (!message.delegatecall) {
      try {
        await this._reduceSenderBalance(account, message);
      } catch (e) {
        errorMessage = e;
      }
    }
    const toAccount = (await this.stateManager.getAccount(message.to)) ?? new Account();
    if (!message.delegatecall) {
      try {
        await this._addToBalance(toAccount, message);
      } catch (e) {
        errorMessage = e;
      }
    }
    await this._loadCode(message);
    const code = message.code;
    if (!code || (typeof code !== 'function' && code.length === 0) || errorMessage !== undefined) {
      return {
        execResult: {
          gasRefund: message.gasRefund,
          executionGasUsed: message.gasLimit - gasLimit,
          exceptionError: errorMessage,
          returnValue: new Uint8Array(0),
          logs: undefined,
        } as ExecResult,
      };
    }
    let result: ExecResult;
    if (message.isCompiled) {
      result = await this.runPrecompile(code, message.data, gasLimit);
      result.gasRefund = message.gasRefund;
    } else {
      // The message itself: on these forks the copy would hold the same two values (nothing above charges gas, so
      // `gasLimit` is still the message's; `codeAddress` is what the message's getter answers), and the frame runner
      // only reads it. (An object whose prototype is the message, as before, turned every message into a prototype:
      // V8 copies such an object's map, ~5 % of a 200-call trace.)
      result = await this.runInterpreter(message, { initialLogs: undefined });
    }
    if (message.depth === 0) this.postMessageCleanup();
    result.executionGasUsed += message.gasLimit - gasLimit;
    return { execResult: result };
  };
}
