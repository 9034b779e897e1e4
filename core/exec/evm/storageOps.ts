/**
 * SLOAD and SSTORE without a promise (decision 0035). The library's handlers and gas rules for both are async and
 * await the state manager twice or three times per op; ours (evmStateManager.ts) answers synchronously behind those
 * promises, so on the ERC-20 bench every storage op paid 2-5 promise round trips plus the library's bigint ↔ bytes
 * helpers. When the frame's state manager offers the synchronous calls below, these handlers read and write through
 * them with the library's rules (EIP-2200 net gas metering with EIP-2929 access costs and EIP-3529 refunds, the
 * order of its checks and errors); any other state manager, and the forks whose storage rules only the library has
 * (Verkle/binary-tree witnesses 6800/7864, Amsterdam's 8037/8038 state gas and 7928 access lists), take the
 * library's async path.
 */
import { EVMError } from '@ethereumjs/evm';
import { type Address, EthereumJSErrorWithoutCode } from '@ethereumjs/util';
import type { CommonLike, OpcodeEntry, RunState } from './internals.ts';
import { bytesToWord, writeWord } from './wordOps.ts';

const OUT_OF_GAS = EVMError.errorMessages.OUT_OF_GAS;
const STATIC_STATE_CHANGE = EVMError.errorMessages.STATIC_STATE_CHANGE;

/** The synchronous storage calls a state manager may offer (ours: evmStateManager.ts). */
export interface SyncStorage {
  storageNow(address: Address, key: Uint8Array): Uint8Array;
  /** The slot's value at the start of the transaction (EIP-2200's "original"). */
  originalStorageNow(address: Address, key: Uint8Array): Uint8Array;
  /** Writes the slot (`value` big-endian, any leading zeros); returns the account after the write. */
  putStorageNow(address: Address, key: Uint8Array, value: Uint8Array): unknown;
}

interface Journal {
  isWarmedStorage(address: Uint8Array, slot: Uint8Array): boolean;
  addWarmedStorage(address: Uint8Array, slot: Uint8Array): void;
}

interface StorageRunState extends RunState {
  stack: { _store: bigint[]; _len: number; peek(n?: number): bigint[]; pop(): bigint; popN(n: number): bigint[]; push(v: bigint): void };
  env: RunState['env'] & { address: Address; contract: unknown };
  interpreter: {
    _stateManager: Partial<SyncStorage>;
    journal: Journal;
    isStatic(): boolean;
    refundGas(amount: bigint, context?: string): void;
    subRefund(amount: bigint, context?: string): void;
    storageLoad(key: Uint8Array): Promise<Uint8Array>;
  };
}

/** The frame's state manager when it offers the synchronous calls. */
function syncStorageOf(rs: StorageRunState): SyncStorage | undefined {
  const sm = rs.interpreter._stateManager;
  return typeof sm.storageNow === 'function' && typeof sm.putStorageNow === 'function' ? (sm as SyncStorage) : undefined;
}

/** Words are written here (one DataView for all) and copied out. */
const SCRATCH = new Uint8Array(32);

function keyOfWord(word: bigint): Uint8Array {
  writeWord(SCRATCH, 0, word);
  return SCRATCH.slice();
}

/** The top stack word as a 32-byte slot key (the library's STACK_UNDERFLOW on an empty stack). */
function topKey(rs: StorageRunState): Uint8Array {
  const stack = rs.stack;
  return keyOfWord(stack._len >= 1 ? (stack._store[stack._len - 1] as bigint) : (stack.peek()[0] as bigint));
}

/** Whether the library's storage rules need steps these handlers do not have. */
function libraryOnly(common: CommonLike): boolean {
  return [6800, 7864, 7928, 8037, 8038].some((eip) => common.isActivatedEIP(eip));
}

/** The fork's gas parameters of EIP-2200/2929/3529, read once per opcode table. */
function storageParams(common: CommonLike): Record<string, bigint> {
  const names = [
    'coldsloadGas',
    'warmstoragereadGas',
    'sstoreSentryEIP2200Gas',
    'sstoreNoopEIP2200Gas',
    'sstoreInitEIP2200Gas',
    'sstoreCleanEIP2200Gas',
    'sstoreDirtyEIP2200Gas',
    'sstoreClearRefundEIP2200Gas',
    'sstoreInitRefundEIP2200Gas',
    'sstoreCleanRefundEIP2200Gas',
    'sstoreResetGas',
  ];
  return Object.fromEntries(names.map((n) => [n, common.param(n)]));
}

async function sloadLibrary(rs: StorageRunState, key: Uint8Array): Promise<void> {
  rs.stack.push(bytesToWord(await rs.interpreter.storageLoad(key)));
}

/** SLOAD: the library's handler (its storage read through `storageLoad`), without a promise when possible. */
function sload(rs: StorageRunState, common: CommonLike): Promise<void> | undefined {
  const key = keyOfWord(rs.stack.pop());
  const sm = syncStorageOf(rs);
  if (sm === undefined || common.isActivatedEIP(7928)) return sloadLibrary(rs, key);
  rs.stack.push(bytesToWord(sm.storageNow(rs.env.address, key)));
  return undefined;
}

/**
 * Swaps SLOAD's handler (every fork; it falls back to the library's read itself) and, on the forks from Berlin on
 * whose storage rules it has, the synchronous gas rules of SLOAD and SSTORE and SSTORE's handler into one EVM's
 * opcode table. A gas rule returns undefined (nothing done yet) when the frame's state manager is not synchronous;
 * the loop then awaits the library's.
 */
export function installStorageOps(opcodeMap: OpcodeEntry[], common: CommonLike): void {
  const load = opcodeMap[0x54];
  if (load !== undefined && load.opcodeInfo.code === 0x54 && load.opcodeInfo.isAsync) {
    load.opHandler = sload as unknown as OpcodeEntry['opHandler'];
  }
  if (!common.isActivatedEIP(2929) || libraryOnly(common)) return;
  const p = storageParams(common);
  const cold = p.coldsloadGas as bigint;
  const warmRead = p.warmstoragereadGas as bigint;
  if (load !== undefined && load.opcodeInfo.code === 0x54 && load.opcodeInfo.dynamicGas) {
    load.syncGasHandler = (state, gas) => {
      const rs = state as StorageRunState;
      const key = topKey(rs);
      const journal = rs.interpreter.journal;
      const address = rs.env.address.bytes;
      if (journal.isWarmedStorage(address, key)) return gas + warmRead;
      journal.addWarmedStorage(address, key);
      return gas + cold;
    };
  }
  const store = opcodeMap[0x55];
  if (store === undefined || store.opcodeInfo.code !== 0x55 || !store.opcodeInfo.dynamicGas || !store.opcodeInfo.isAsync) return;
  const libraryStore = store.opHandler;
  store.syncGasHandler = (state, gas) => {
    const rs = state as StorageRunState;
    const sm = syncStorageOf(rs);
    if (sm === undefined) return undefined;
    const interp = rs.interpreter;
    // The library's order: the static check, the operands, both reads, the EIP-2200 sentry, then the costs.
    if (interp.isStatic()) throw new EVMError(STATIC_STATE_CHANGE);
    const [keyWord, value] = rs.stack.peek(2) as [bigint, bigint];
    const key = keyOfWord(keyWord);
    const address = rs.env.address;
    const current = bytesToWord(sm.storageNow(address, key));
    const original = bytesToWord(sm.originalStorageNow(address, key));
    if (rs.gasLeft <= (p.sstoreSentryEIP2200Gas as bigint)) throw new EVMError(OUT_OF_GAS);
    const journal = interp.journal;
    const warm = journal.isWarmedStorage(address.bytes, key);
    const clearRefund = p.sstoreClearRefundEIP2200Gas as bigint;
    let cost: bigint;
    if (current === value) {
      cost = warm ? warmRead : (p.sstoreNoopEIP2200Gas as bigint);
    } else if (original === current) {
      if (original === 0n) cost = p.sstoreInitEIP2200Gas as bigint;
      else {
        if (value === 0n) interp.refundGas(clearRefund, 'EIP-2200 -> sstoreClearRefundEIP2200');
        cost = p.sstoreCleanEIP2200Gas as bigint;
      }
    } else {
      if (original !== 0n) {
        if (current === 0n) interp.subRefund(clearRefund, 'EIP-2200 -> sstoreClearRefundEIP2200');
        else if (value === 0n) interp.refundGas(clearRefund, 'EIP-2200 -> sstoreClearRefundEIP2200');
      }
      if (original === value) {
        if (original === 0n) {
          const refund = warm ? (p.sstoreInitEIP2200Gas as bigint) - warmRead : (p.sstoreInitRefundEIP2200Gas as bigint);
          interp.refundGas(refund, 'EIP-2200 -> initRefund');
        } else {
          const refund = warm ? (p.sstoreResetGas as bigint) - cold - warmRead : (p.sstoreCleanRefundEIP2200Gas as bigint);
          interp.refundGas(refund, 'EIP-2200 -> cleanRefund');
        }
      }
      cost = p.sstoreDirtyEIP2200Gas as bigint;
    }
    // EIP-2929 after the EIP-2200 rules: a cold slot is warmed and costs the cold read; a warm one nothing more.
    if (warm) return gas + cost;
    journal.addWarmedStorage(address.bytes, key);
    return gas + cost + cold;
  };
  store.opHandler = function sstore(state, common) {
    const rs = state as StorageRunState;
    const sm = syncStorageOf(rs);
    if (sm === undefined) return libraryStore(state, common);
    const [keyWord, value] = rs.stack.popN(2) as [bigint, bigint];
    const account = sm.putStorageNow(rs.env.address, keyOfWord(keyWord), keyOfWord(value));
    if (account === undefined) throw EthereumJSErrorWithoutCode('could not read account while persisting memory');
    rs.env.contract = account;
    return undefined;
  };
}
