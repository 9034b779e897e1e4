/**
 * The chain the reorg benchmark and the side-chain tests build their block trees on: a Clique-shaped config with
 * every fork through Shanghai (seals are not checked: trusted import), a few funded keys and a contract that logs.
 */
import { keccak256 } from '../../primitives/keccak.ts';
import { addressFromPrivateKey } from '../../primitives/secp256k1/index.ts';
import { benchConfig } from '../exec/buildChain.ts';
import { BlockTree, loggerCode } from './blockTree.ts';

/** Funded private keys (0x…01, 0x…02, …). */
export const TREE_KEYS: Uint8Array[] = [1, 2, 3, 4].map((i) => {
  const k = new Uint8Array(32);
  k[31] = i;
  return k;
});

/** Where the logging contract lives, and the topic of its one log. */
export const LOGGER = Uint8Array.from(Buffer.from('00000000000000000000000000000000000010ff', 'hex'));
export const LOGGER_TOPIC = keccak256(new TextEncoder().encode('Logged()'));

/** A fresh block tree over the fixture genesis. */
export function fixtureTree(chainId = 7357n): BlockTree {
  const funded = TREE_KEYS.map((k) => [addressFromPrivateKey(k), { balance: 10n ** 24n }] as [Uint8Array, { balance: bigint }]);
  return BlockTree.create(benchConfig(chainId), [...funded, [LOGGER, { balance: 0n, code: loggerCode(LOGGER_TOPIC) }]]);
}
