import { isForkActive } from '../../chain/forks.ts';
import { SYSTEM_CONTRACTS } from '../../chain/genesis/systemContracts.ts';
import { buildCliqueExtra } from '../../consensus/clique/extraData.ts';
import { bytesToHex } from '../../primitives/hex.ts';

/** The forks a Clique network built here may run from genesis (anvil's `--hardfork` names, lower-cased). */
export const GENESIS_FORKS = ['Shanghai', 'Cancun', 'Prague', 'Osaka'] as const;
export type GenesisFork = (typeof GENESIS_FORKS)[number];

/** Every fork up to London/Gray Glacier is activated by block number; Shanghai and later by time. */
const BLOCK_FORKS = [
  'homestead',
  'eip150',
  'eip155',
  'eip158',
  'byzantium',
  'constantinople',
  'petersburg',
  'istanbul',
  'muirGlacier',
  'berlin',
  'london',
  'arrowGlacier',
  'grayGlacier',
];

/** What a single-purpose Clique network needs: the dev chain, and the benchmarks' own networks. */
export interface CliqueGenesisSpec {
  chainId: number;
  period: number;
  epoch: number;
  /** Genesis timestamp in seconds. */
  timestamp?: number;
  signers: readonly Uint8Array[];
  /** Funded accounts: lower-case hex address without 0x → balance in wei. */
  alloc: Record<string, bigint>;
  /** The newest fork active from genesis (default Shanghai); Cancun and later add their system contracts. */
  fork?: GenesisFork;
}

/**
 * A geth-format genesis.json for a Clique network with every fork through `spec.fork` active from genesis and a 30 M
 * gas limit. It goes through the same parser as any other network's genesis, so these chains exercise the real path.
 */
export function cliqueGenesisJson(spec: CliqueGenesisSpec): Record<string, unknown> {
  const fork = spec.fork ?? 'Shanghai';
  const alloc: Record<string, { balance: string; code?: string; nonce?: string }> = {};
  for (const c of SYSTEM_CONTRACTS) if (isForkActive(fork, c.fork)) alloc[c.address] = { balance: '0x0', code: c.code, nonce: '0x1' };
  for (const [address, balance] of Object.entries(spec.alloc)) alloc[address] = { balance: '0x' + balance.toString(16) };
  const times = GENESIS_FORKS.slice(0, GENESIS_FORKS.indexOf(fork) + 1).map((f) => [`${f.toLowerCase()}Time`, 0]);
  return {
    config: {
      chainId: spec.chainId,
      ...Object.fromEntries(BLOCK_FORKS.map((f) => [`${f}Block`, 0])),
      ...Object.fromEntries(times),
      clique: { period: spec.period, epoch: spec.epoch },
    },
    nonce: '0x0',
    timestamp: '0x' + (spec.timestamp ?? 0).toString(16),
    extraData: bytesToHex(buildCliqueExtra(new Uint8Array(32), spec.signers)),
    gasLimit: '0x1c9c380',
    difficulty: '0x1',
    mixHash: '0x' + '00'.repeat(32),
    coinbase: '0x' + '00'.repeat(20),
    alloc,
  };
}
