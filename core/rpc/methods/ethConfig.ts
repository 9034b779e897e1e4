/**
 * eth_config (EIP-7910): the current, next and last fork configurations, in geth's JSON: activationTime and the blob
 * numbers as JSON numbers, chainId a quantity, forkId 4 bytes of hex, precompiles and systemContracts as objects of
 * name → address sorted by name (docs/decisions/0033 for what the PoA chain reports).
 */
import { type ForkConfigData } from '../interface.ts';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { methodNotFound } from '../errors.ts';
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';

function encodeForkConfig(c: ForkConfigData | null): Record<string, unknown> | null {
  if (c === null) return null;
  const named = (list: { name: string; address: Uint8Array }[]) => Object.fromEntries(list.map((e) => [e.name, bytesToHex(e.address)]));
  return {
    activationTime: c.activationTime,
    blobSchedule:
      c.blobSchedule === null
        ? null
        : { target: c.blobSchedule.target, max: c.blobSchedule.max, baseFeeUpdateFraction: Number(c.blobSchedule.baseFeeUpdateFraction) },
    chainId: toQuantity(c.chainId),
    forkId: bytesToHex(c.forkId),
    precompiles: named(c.precompiles),
    systemContracts: named(c.systemContracts),
  };
}

export function ethConfigMethods(s: RpcServices): MethodTable {
  const { chain } = s.deps;
  return {
    eth_config: method([], async () => {
      if (!chain.forkConfigs) throw methodNotFound('eth_config');
      const c = await chain.forkConfigs();
      return { current: encodeForkConfig(c.current), next: encodeForkConfig(c.next), last: encodeForkConfig(c.last) };
    }),
  };
}
