/**
 * Test-node methods that anvil and Hardhat users script against, present only in dev mode with a DevView; on any
 * other network they do not exist (-32601). Shapes follow anvil: evm_snapshot returns a quantity id, evm_revert a
 * boolean, evm_increaseTime the total time offset as a quantity.
 */
import { address, bool, optional, quantity, required } from '../params.ts';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { ParamError, jsonKind } from '../params.ts';
import { toQuantity } from '../../primitives/hex.ts';

/** anvil accepts numbers or hex strings for counts and seconds. */
function numberish(v: unknown): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string') return quantity(v);
  throw new ParamError(`cannot decode ${jsonKind(v)} as a number`);
}

export function devMethods(s: RpcServices): MethodTable {
  const dev = s.deps.dev;
  if (!s.options.dev || !dev) return {};
  const setBalance = method([required(address), required(quantity)] as const, async ([a, v]) => {
    await dev.setBalance(a, v);
    return true;
  });
  return {
    evm_mine: method([optional(numberish)] as const, async ([timestamp]) => {
      await dev.mine(1, timestamp);
      return '0x0';
    }),
    anvil_mine: method([optional(numberish), optional(numberish)] as const, async ([blocks]) => {
      await dev.mine(Number(blocks ?? 1n));
      return null;
    }),
    evm_setAutomine: method([required(bool)] as const, ([on]) => {
      dev.setAutomine(on);
      return true;
    }),
    evm_snapshot: method([], async () => toQuantity(await dev.snapshot())),
    evm_revert: method([required(quantity)] as const, async ([id]) => dev.revert(id)),
    evm_increaseTime: method([required(numberish)] as const, async ([secs]) => toQuantity(await dev.increaseTime(secs))),
    anvil_setBalance: setBalance,
    hardhat_setBalance: setBalance,
  };
}
