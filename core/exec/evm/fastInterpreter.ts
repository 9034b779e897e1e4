/**
 * A faster main loop for @ethereumjs/evm's interpreter, opted into per EVM instance (decision 0020).
 *
 * The library's `Interpreter.run` awaits an async `runStep` for every opcode (a promise and a microtask per step,
 * ~40% of an ERC-20 transfer's CPU), re-runs the jump-destination analysis for every call frame, and asks
 * `Common.isActivatedEIP` (a linear scan of ~60 EIPs) several times per step. This module replaces `run` for the
 * EVMs given to `enableFastInterpreter`: it awaits only where the library's handler is async (dynamic gas, state
 * access), caches the jump analysis per code array, and answers `isActivatedEIP` from a Set. Every opcode and gas
 * handler is still the library's own, so gas and state semantics are unchanged; anything the fast loop does not
 * cover (EOF code, a resumed pc, tracing listeners, debug mode, the profiler, Verkle/binary-tree witnesses) goes to
 * the library's original `run`.
 *
 * It reaches into the library's dist files (`interpreter.js`, `opcodes/EIP7928.js`), which its `exports` map does
 * not publish; the version is pinned exactly in package.json and checked here, and any other version leaves every
 * EVM on the library's own loop.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EVMError, type EVM } from '@ethereumjs/evm';
import { Account, type Address, createZeroAddress } from '@ethereumjs/util';

/** The @ethereumjs/evm version whose internals this loop was written against. */
export const FAST_INTERPRETER_EVM_VERSION = '10.1.3';

interface OpcodeInfo {
  code: number;
  feeBigInt: bigint;
  dynamicGas: boolean;
  isAsync: boolean;
  isInvalid: boolean;
}

interface OpcodeEntry {
  opcodeInfo: OpcodeInfo;
  opHandler: (runState: RunState, common: unknown) => unknown;
  gasHandler: (runState: RunState, gas: bigint, common: unknown) => Promise<bigint>;
}

interface JumpAnalysis {
  jumps: Uint8Array;
  pushes: Record<number, bigint>;
  opcodesCached: OpcodeEntry[];
}

interface RunState {
  programCounter: number;
  opCode: number;
  code: Uint8Array;
  validJumps: Uint8Array;
  cachedPushes: Record<number, bigint>;
  shouldDoJumpAnalysis: boolean;
  gasLeft: bigint;
  env: { accessWitness?: { commit(): void; revert(): void }; chargeCodeAccesses?: boolean };
  eip7928PostTargetCallOog?: unknown;
  eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean;
}

interface EvmInternals {
  DEBUG: boolean;
  events: { listenerCount(name: string): number };
  common: CommonLike;
  _opcodeMap: OpcodeEntry[];
  _optsCached: { profiler?: { enabled?: boolean } };
}

interface CommonLike {
  isActivatedEIP(eip: number): boolean;
  eips(): number[];
}

interface InterpreterInternals {
  _evm: EvmInternals;
  _runState: RunState;
  common: CommonLike;
  useGas(amount: bigint, context?: unknown): void;
  _getValidJumpDestinations(code: Uint8Array): JumpAnalysis;
}

type RunResult = { runState: RunState; exceptionError: unknown };
type RunFn = (this: InterpreterInternals, code: Uint8Array, opts?: { pc?: number }) => Promise<RunResult>;

interface EvmError {
  errorType?: string;
  error?: string;
}

const EOF_FORMAT = 0xef;
const STOP = EVMError.errorMessages.STOP;
const OUT_OF_GAS = EVMError.errorMessages.OUT_OF_GAS;
const INVALID_OPCODE = EVMError.errorMessages.INVALID_OPCODE;

/** Per enabled EVM: jump analyses keyed by the code array (state layers hand out one array per code hash). */
const analyses = new WeakMap<object, WeakMap<Uint8Array, JumpAnalysis>>();

function isEvmError(e: unknown): e is EvmError {
  return typeof e === 'object' && e !== null && (e as EvmError).errorType === 'EVMError';
}

async function loadInternals(): Promise<{ proto: InterpreterInternals & { run: RunFn }; consume: (rs: RunState) => void } | string> {
  const require = createRequire(import.meta.url);
  const cjsEntry = require.resolve('@ethereumjs/evm');
  const root = dirname(dirname(dirname(cjsEntry)));
  const pkg = require(join(root, 'package.json')) as { version?: string };
  if (pkg.version !== FAST_INTERPRETER_EVM_VERSION) return `@ethereumjs/evm ${pkg.version} is not ${FAST_INTERPRETER_EVM_VERSION}`;
  const esm = join(root, 'dist', 'esm');
  const interp = (await import(pathToFileURL(join(esm, 'interpreter.js')).href)) as { Interpreter?: { prototype: unknown } };
  const eip7928 = (await import(pathToFileURL(join(esm, 'opcodes', 'EIP7928.js')).href)) as {
    consumeEip7928PostTargetCallOog?: (rs: RunState) => void;
  };
  const proto = interp.Interpreter?.prototype as (InterpreterInternals & { run: RunFn }) | undefined;
  if (proto === undefined || typeof proto.run !== 'function' || typeof proto._getValidJumpDestinations !== 'function') {
    return 'Interpreter internals not found';
  }
  if (typeof eip7928.consumeEip7928PostTargetCallOog !== 'function') return 'consumeEip7928PostTargetCallOog not found';
  const evmModule = (await import(pathToFileURL(join(esm, 'evm.js')).href)) as { defaultBlock?: () => unknown };
  if (typeof evmModule.defaultBlock !== 'function') return 'defaultBlock not found';
  defaultBlock = evmModule.defaultBlock;
  interpreterClass = interp.Interpreter as unknown as InterpreterCtor;
  return { proto, consume: eip7928.consumeEip7928PostTargetCallOog };
}

async function installPatch(): Promise<{ ok: true } | { ok: false; reason: string }> {
  const internals = await loadInternals();
  if (typeof internals === 'string') return { ok: false, reason: internals };
  const { proto, consume } = internals;
  const originalRun = proto.run;
  proto.run = function run(this: InterpreterInternals, code: Uint8Array, opts: { pc?: number } = {}): Promise<RunResult> {
    const evm = this._evm;
    const cache = analyses.get(evm);
    if (
      cache === undefined ||
      code[0] === EOF_FORMAT ||
      opts.pc !== undefined ||
      evm.DEBUG ||
      evm._optsCached.profiler?.enabled === true ||
      evm.events.listenerCount('step') > 0 ||
      (this._runState.env.chargeCodeAccesses === true && (this.common.isActivatedEIP(6800) || this.common.isActivatedEIP(7864)))
    ) {
      return originalRun.call(this, code, opts);
    }
    return fastRun(this, code, cache, consume);
  };
  return { ok: true };
}

async function fastRun(
  interp: InterpreterInternals,
  code: Uint8Array,
  cache: WeakMap<Uint8Array, JumpAnalysis>,
  consume: (rs: RunState) => void,
): Promise<RunResult> {
  const rs = interp._runState;
  const common = interp.common;
  rs.code = code;
  let analysis = cache.get(code);
  if (analysis === undefined) {
    analysis = interp._getValidJumpDestinations(code);
    cache.set(code, analysis);
  }
  rs.validJumps = analysis.jumps;
  rs.cachedPushes = analysis.pushes;
  rs.shouldDoJumpAnalysis = false;
  const ops = analysis.opcodesCached;
  const length = code.length;
  let err: unknown;
  while (rs.programCounter < length) {
    const entry = ops[rs.programCounter] as OpcodeEntry;
    const info = entry.opcodeInfo;
    rs.opCode = info.code;
    try {
      let gas = info.feeBigInt;
      if (info.dynamicGas) gas = await entry.gasHandler(rs, gas, common);
      if (info.isInvalid) throw new EVMError(INVALID_OPCODE);
      rs.gasLeft -= gas;
      if (rs.gasLeft < 0n) interp.useGas(0n, info);
      rs.programCounter++;
      if (rs.eip7928PostTargetCallOog !== undefined) consume(rs);
      if (info.isAsync) await entry.opHandler(rs, common);
      else entry.opHandler(rs, common);
      rs.env.accessWitness?.commit();
    } catch (e) {
      rs.env.accessWitness?.revert();
      if (!isEvmError(e)) throw e;
      if (e.error !== STOP) err = e;
      break;
    }
  }
  if (err === undefined && rs.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true && rs.gasLeft > 0n) {
    rs.gasLeft = 0n;
    err = new EVMError(OUT_OF_GAS);
  }
  return { runState: rs, exceptionError: err };
}

const fastCommons = new WeakSet<object>();

/**
 * Replaces `isActivatedEIP` on `common` with a Set lookup. Common replaces its `_activatedEIPsCache` array whenever
 * the hardfork or EIP list changes, so the Set is rebuilt when that array is no longer the one it was built from.
 */
function fastEipLookup(common: CommonLike & { _activatedEIPsCache?: number[] }): void {
  if (fastCommons.has(common) || !Array.isArray(common._activatedEIPsCache)) return;
  fastCommons.add(common);
  let source: number[] | undefined;
  let active = new Set<number>();
  common.isActivatedEIP = (eip: number): boolean => {
    const current = common._activatedEIPsCache as number[];
    if (current !== source) {
      source = current;
      active = new Set(current);
    }
    return active.has(eip);
  };
}

type InterpreterCtor = new (...args: unknown[]) => InterpreterInternals & {
  _result: Record<string, unknown> & { selfdestruct?: unknown; createdAddresses?: unknown };
  _env: Record<string, unknown>;
  run(code: Uint8Array, opts: unknown): Promise<RunResult>;
};
let interpreterClass: InterpreterCtor | undefined;
let defaultBlock: () => unknown = () => undefined;

const ZERO_ADDRESS = createZeroAddress();
const REVERT = EVMError.errorMessages.REVERT;
const INVALID_EOF = EVMError.errorMessages.INVALID_EOF_FORMAT;

interface MessageLike {
  to?: Address;
  caller?: Address;
  data?: Uint8Array;
  value?: bigint;
  code: Uint8Array;
  isStatic?: boolean;
  isCreate?: boolean;
  depth?: number;
  codeAddress: Address;
  gasRefund: bigint;
  gasLimit: bigint;
  chargeCodeAccesses?: boolean;
  blobVersionedHashes?: Uint8Array[];
  accessWitness?: { commit(): void };
  createdAddresses?: Set<string>;
  selfdestruct?: Map<string, Uint8Array>;
}

interface EvmRunInternals {
  stateManager: { getAccount(a: Address): Promise<Account | undefined> };
  blockchain: unknown;
  journal: unknown;
  performanceLogger: unknown;
  _optsCached: { profiler?: unknown };
  _tx: { gasPrice: bigint; origin?: Address };
  _block?: unknown;
}

/**
 * `EVM.runInterpreter` without the per-frame snapshot the library spreads together from the run state, the result
 * and the environment (three object spreads of ~45 fields per call frame, read by nothing in this node): the same
 * result, with `runState` built on first access instead.
 */
async function runInterpreter(this: EvmRunInternals, message: MessageLike, opts: { initialLogs?: unknown[] } = {}): Promise<unknown> {
  const contract = (await this.stateManager.getAccount(message.to ?? ZERO_ADDRESS)) ?? new Account();
  const env = {
    address: message.to ?? ZERO_ADDRESS,
    caller: message.caller ?? ZERO_ADDRESS,
    callData: message.data ?? Uint8Array.from([0]),
    callValue: message.value ?? 0n,
    code: message.code,
    isStatic: message.isStatic ?? false,
    isCreate: message.isCreate ?? false,
    depth: message.depth ?? 0,
    gasPrice: this._tx.gasPrice,
    origin: this._tx.origin ?? message.caller ?? ZERO_ADDRESS,
    block: this._block ?? defaultBlock(),
    contract,
    codeAddress: message.codeAddress,
    gasRefund: message.gasRefund,
    chargeCodeAccesses: message.chargeCodeAccesses,
    blobVersionedHashes: message.blobVersionedHashes ?? [],
    accessWitness: message.accessWitness,
    createdAddresses: message.createdAddresses,
    initialLogs: opts.initialLogs,
  };
  const Interp = interpreterClass as InterpreterCtor;
  const interpreter = new Interp(
    this,
    this.stateManager,
    this.blockchain,
    env,
    message.gasLimit,
    this.journal,
    this.performanceLogger,
    this._optsCached.profiler,
  );
  if (message.selfdestruct) interpreter._result.selfdestruct = message.selfdestruct;
  if (message.createdAddresses) interpreter._result.createdAddresses = message.createdAddresses;
  const interpreterRes = await interpreter.run(message.code, opts);
  let result: Record<string, unknown> = interpreter._result;
  const runState = interpreterRes.runState as RunState & { gasRefund: bigint; stateGasSpilled: bigint };
  let gasUsed = message.gasLimit - runState.gasLeft;
  const error = interpreterRes.exceptionError as EvmError | undefined;
  if (error) {
    if (error.error !== REVERT && error.error !== INVALID_EOF) gasUsed = message.gasLimit;
    result = { ...result, logs: [], selfdestruct: new Map(), createdAddresses: new Set() };
  }
  message.accessWitness?.commit();
  const out: Record<string, unknown> = {
    ...result,
    exceptionError: interpreterRes.exceptionError,
    gas: runState.gasLeft,
    executionGasUsed: gasUsed,
    gasRefund: runState.gasRefund,
    stateGasSpilled: runState.stateGasSpilled,
    returnValue: result.returnValue ?? new Uint8Array(0),
  };
  const snapshot = result;
  Object.defineProperty(out, 'runState', {
    enumerable: true,
    configurable: true,
    get() {
      const value = { ...runState, ...snapshot, ...interpreter._env };
      Object.defineProperty(out, 'runState', { value, enumerable: true, writable: true, configurable: true });
      return value;
    },
    set(value: unknown) {
      Object.defineProperty(out, 'runState', { value, enumerable: true, writable: true, configurable: true });
    },
  });
  return out;
}

const patched = await installPatch();

/**
 * Opts `evm` into the fast loop. Returns why not when this library version is not the one the loop was written
 * against (the EVM then keeps the library's loop, which is correct, only slower).
 */
export function enableFastInterpreter(evm: EVM): { enabled: boolean; reason?: string } {
  if (!patched.ok) return { enabled: false, reason: patched.reason };
  fastEipLookup((evm as unknown as EvmInternals).common);
  analyses.set(evm, new WeakMap());
  (evm as unknown as { runInterpreter: unknown }).runInterpreter = runInterpreter;
  return { enabled: true };
}
