/** The web3_ namespace: client version and keccak-256 of data. */
import { data, required } from '../params.ts';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { bytesToHex } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';

export function web3Methods(s: RpcServices): MethodTable {
  return {
    web3_clientVersion: method([], () => s.options.clientVersion),
    web3_sha3: method([required(data)] as const, ([input]) => bytesToHex(keccak256(input))),
  };
}
