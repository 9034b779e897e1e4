/**
 * Test-node methods that anvil and Hardhat users script against, present only in dev mode with a DevView; on any
 * other network they do not exist (-32601). Shapes follow anvil: evm_snapshot returns a quantity id, evm_revert a
 * boolean, evm_increaseTime the total time offset as a quantity. The anvil_set* state edits (hardhat_set* aliases)
 * return true as Hardhat's do (anvil returns null; no client reads it) once the edit is visible at 'latest'.
 */
import { address, bool, data, hash, optional, quantity, required, storageKey, uint64 } from '../params.ts';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { ParamError, jsonKind } from '../params.ts';
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';
import { RpcError } from '../errors.ts';

/** anvil accepts numbers or hex strings for counts and seconds. */
function numberish(v: unknown): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string') return quantity(v);
  throw new ParamError(`cannot decode ${jsonKind(v)} as a number`);
}

/**
 * evm_setIntervalMining's argument: milliseconds, or Hardhat's `[min, max]` (each block's wait drawn from the range).
 */
function intervalMs(v: unknown): number | readonly [number, number] {
  if (!Array.isArray(v)) return Number(numberish(v));
  if (v.length !== 2) throw new ParamError(`interval range has ${v.length} elements, want [min, max]`);
  const [min, max] = [Number(numberish(v[0])), Number(numberish(v[1]))];
  if (min > max) throw new ParamError(`interval range [${min}, ${max}]: min is above max`);
  return [min, max];
}

/** A 32-byte storage word: anvil and Hardhat take a full word; a shorter DATA is left-padded like a quantity. */
function storageWord(v: unknown): Uint8Array {
  const bytes = data(v);
  if (bytes.length > 32) throw new ParamError(`storage value has ${bytes.length} bytes, want at most 32`);
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}

export function devMethods(s: RpcServices): MethodTable {
  const dev = s.deps.dev;
  if (!s.options.dev || !dev) return {};
  const setBalance = method([required(address), required(quantity)] as const, async ([a, balance]) => {
    await dev.editState({ address: a, balance });
    return true;
  });
  const setNonce = method([required(address), required(uint64)] as const, async ([a, nonce]) => {
    await dev.editState({ address: a, nonce });
    return true;
  });
  const setCode = method([required(address), required(data)] as const, async ([a, code]) => {
    await dev.editState({ address: a, code });
    return true;
  });
  const setStorageAt = method([required(address), required(storageKey), required(storageWord)] as const, async ([a, slot, value]) => {
    await dev.editState({ address: a, storage: [[slot, value]] });
    return true;
  });
  const getAutomine = method([], () => dev.getAutomine());
  const impersonate = method([required(address)] as const, ([a]) => {
    dev.impersonate(a, true);
    return null;
  });
  const stopImpersonating = method([required(address)] as const, ([a]) => {
    dev.impersonate(a, false);
    return null;
  });
  // anvil answers its own names and Hardhat's for these (hardhat_mine, anvil_snapshot, ...): one handler each.
  const mineBlocks = method([optional(numberish), optional(numberish)] as const, async ([blocks, interval]) => {
    await dev.mine(Number(blocks ?? 1n), undefined, interval);
    return null;
  });
  const setNextBlockTimestamp = method([required(numberish)] as const, async ([ts]) => {
    await dev.setNextBlockTimestamp(ts);
    return null;
  });
  const setNextBlockBaseFee = method([required(quantity)] as const, async ([fee]) => {
    await dev.setNextBlockBaseFee(fee);
    return null;
  });
  const setBlockGasLimit = method([required(quantity)] as const, async ([gas]) => {
    await dev.setBlockGasLimit(gas);
    return true;
  });
  const setCoinbase = method([required(address)] as const, async ([a]) => {
    await dev.setCoinbase(a);
    return null;
  });
  const dropTransaction = method([required(hash)] as const, async ([h]) => {
    const dropped = await dev.dropTransaction(h);
    return dropped && bytesToHex(dropped);
  });
  const reset = method([optional((v: unknown) => v)] as const, async ([opts]) => {
    if (opts !== undefined && opts !== null && typeof opts === 'object' && 'forking' in opts && opts.forking != null)
      throw new RpcError('SERVER_ERROR', 'anvil_reset: forking is not supported by this node (only a reset to its own genesis)');
    await dev.reset();
    return null;
  });
  const snapshot = method([], async () => toQuantity(await dev.snapshot()));
  const revert = method([required(quantity)] as const, async ([id]) => dev.revert(id));
  const increaseTime = method([required(numberish)] as const, async ([secs]) => toQuantity(await dev.increaseTime(secs)));
  const setLoggingEnabled = method([required(bool)] as const, () => null);
  return {
    evm_mine: method([optional(numberish)] as const, async ([timestamp]) => {
      await dev.mine(1, timestamp);
      return '0x0';
    }),
    anvil_mine: mineBlocks,
    hardhat_mine: mineBlocks,
    anvil_getAutomine: getAutomine,
    hardhat_getAutomine: getAutomine,
    evm_setNextBlockTimestamp: setNextBlockTimestamp,
    anvil_setNextBlockTimestamp: setNextBlockTimestamp,
    anvil_setNextBlockBaseFeePerGas: setNextBlockBaseFee,
    hardhat_setNextBlockBaseFeePerGas: setNextBlockBaseFee,
    evm_setBlockGasLimit: setBlockGasLimit,
    anvil_setBlockGasLimit: setBlockGasLimit,
    anvil_setCoinbase: setCoinbase,
    hardhat_setCoinbase: setCoinbase,
    anvil_dropTransaction: dropTransaction,
    hardhat_dropTransaction: dropTransaction,
    anvil_impersonateAccount: impersonate,
    hardhat_impersonateAccount: impersonate,
    anvil_stopImpersonatingAccount: stopImpersonating,
    hardhat_stopImpersonatingAccount: stopImpersonating,
    anvil_autoImpersonateAccount: method([required(bool)] as const, ([on]) => {
      dev.autoImpersonate(on);
      return null;
    }),
    anvil_dumpState: method([], async () => bytesToHex(await dev.dumpState())),
    anvil_loadState: method([required(data)] as const, async ([dump]) => {
      await dev.loadState(dump);
      return true;
    }),
    anvil_reset: reset,
    hardhat_reset: reset,
    evm_setAutomine: method([required(bool)] as const, ([on]) => {
      dev.setAutomine(on);
      return true;
    }),
    anvil_setAutomine: method([required(bool)] as const, ([on]) => {
      dev.setAutomine(on);
      return null;
    }),
    evm_setIntervalMining: method([required(intervalMs)] as const, ([ms]) => {
      dev.setIntervalMining(ms);
      return true;
    }),
    anvil_setIntervalMining: method([required(numberish)] as const, ([secs]) => {
      dev.setIntervalMining(Number(secs) * 1000);
      return null;
    }),
    // ganache's and anvil's evm_setTime answer the new offset from the wall clock, in seconds, as a JSON number.
    evm_setTime: method([required(numberish)] as const, async ([ts]) => Number(await dev.setTime(ts))),
    anvil_setBlockTimestampInterval: method([required(numberish)] as const, ([secs]) => {
      dev.setBlockTimestampInterval(secs);
      return null;
    }),
    anvil_removeBlockTimestampInterval: method([], () => dev.setBlockTimestampInterval(undefined)),
    evm_snapshot: snapshot,
    anvil_snapshot: snapshot,
    evm_revert: revert,
    anvil_revert: revert,
    evm_increaseTime: increaseTime,
    anvil_increaseTime: increaseTime,
    // This node logs as it always does; the call is accepted so scripts written for anvil and Hardhat run.
    anvil_setLoggingEnabled: setLoggingEnabled,
    hardhat_setLoggingEnabled: setLoggingEnabled,
    anvil_setBalance: setBalance,
    hardhat_setBalance: setBalance,
    anvil_setNonce: setNonce,
    hardhat_setNonce: setNonce,
    anvil_setCode: setCode,
    hardhat_setCode: setCode,
    anvil_setStorageAt: setStorageAt,
    hardhat_setStorageAt: setStorageAt,
  };
}
