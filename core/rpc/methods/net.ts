/** The net_ namespace: network id (= chain id, decimal string as geth), listening, peer count. */
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { toQuantity } from '../../primitives/hex.ts';

export function netMethods(s: RpcServices): MethodTable {
  return {
    net_version: method([], () => s.deps.chain.chainId().toString(10)),
    net_listening: method([], () => true),
    net_peerCount: method([], () => toQuantity(s.deps.peerCount?.() ?? 0)),
  };
}
