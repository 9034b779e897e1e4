/**
 * EIP-7910 (eth_config): what each configured fork of this chain runs: its activation time, blob parameters, EIP-2124
 * fork hash (EIP-6122 `FORK_HASH`), precompiles and system contracts, as geth's `eth_config` reports them: `current`
 * is the newest time-based fork at the head's time (none before Shanghai), `next` the fork right after it and `last`
 * the newest one configured; both null when no fork is scheduled after the head.
 */
import { crc32 } from 'node:zlib';
import { blobParams, type BlobParams, type ChainConfig, type Fork, forkAt, isForkActive, TIME_FORKS, type TimeFork } from './forks.ts';

/** A 20-byte address from its low bytes (precompile numbers). */
function lowAddress(n: number): Uint8Array {
  const a = new Uint8Array(20);
  a[18] = n >> 8;
  a[19] = n & 0xff;
  return a;
}

function hexAddress(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** The precompiles by their EIP-7910 names and the fork that added each (geth's PrecompiledContract names). */
const PRECOMPILES: readonly { name: string; address: number; since: Fork }[] = [
  { name: 'ECREC', address: 1, since: 'Frontier' },
  { name: 'SHA256', address: 2, since: 'Frontier' },
  { name: 'RIPEMD160', address: 3, since: 'Frontier' },
  { name: 'ID', address: 4, since: 'Frontier' },
  { name: 'MODEXP', address: 5, since: 'Byzantium' },
  { name: 'BN254_ADD', address: 6, since: 'Byzantium' },
  { name: 'BN254_MUL', address: 7, since: 'Byzantium' },
  { name: 'BN254_PAIRING', address: 8, since: 'Byzantium' },
  { name: 'BLAKE2F', address: 9, since: 'Istanbul' },
  { name: 'KZG_POINT_EVALUATION', address: 0x0a, since: 'Cancun' },
  { name: 'BLS12_G1ADD', address: 0x0b, since: 'Prague' },
  { name: 'BLS12_G1MSM', address: 0x0c, since: 'Prague' },
  { name: 'BLS12_G2ADD', address: 0x0d, since: 'Prague' },
  { name: 'BLS12_G2MSM', address: 0x0e, since: 'Prague' },
  { name: 'BLS12_PAIRING_CHECK', address: 0x0f, since: 'Prague' },
  { name: 'BLS12_MAP_FP_TO_G1', address: 0x10, since: 'Prague' },
  { name: 'BLS12_MAP_FP2_TO_G2', address: 0x11, since: 'Prague' },
  { name: 'P256VERIFY', address: 0x100, since: 'Osaka' },
];

/** The system contracts by their EIP-7910 names (the first EIP that named each); the deposit contract is the chain's. */
const SYSTEM_CONTRACTS: readonly { name: string; address: string; since: Fork }[] = [
  { name: 'BEACON_ROOTS_ADDRESS', address: '000f3df6d732807ef1319fb7b8bb8522d0beac02', since: 'Cancun' },
  { name: 'CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS', address: '0000bbddc7ce488642fb579f8b00f3a590007251', since: 'Prague' },
  { name: 'HISTORY_STORAGE_ADDRESS', address: '0000f90827f1c53a10cb7a02335b175320002935', since: 'Prague' },
  { name: 'WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS', address: '00000961ef480eb55e80d19ad83579a64c007002', since: 'Prague' },
];

export interface NamedAddress {
  name: string;
  address: Uint8Array;
}

/** One fork's configuration; the lists are sorted by name (the order geth's JSON maps print). */
export interface ForkConfig {
  /** Unix seconds; 0 for a fork active at genesis. */
  activationTime: number;
  /** null before Cancun. */
  blobSchedule: BlobParams | null;
  chainId: bigint;
  /** The 4-byte EIP-2124 fork hash of the chain with every fork up to this one applied. */
  forkId: Uint8Array;
  precompiles: NamedAddress[];
  systemContracts: NamedAddress[];
}

export interface ForkConfigs {
  current: ForkConfig | null;
  next: ForkConfig | null;
  last: ForkConfig | null;
}

export interface GenesisRef {
  hash: Uint8Array;
  timestamp: number;
}

const byName = (a: NamedAddress, b: NamedAddress): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function uint64Bytes(n: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n));
  return out;
}

/**
 * EIP-2124 fork hash at time `time` with every block fork passed: CRC-32 of the genesis hash, updated with each
 * distinct non-zero fork block, then each distinct fork time after genesis up to `time` (8 bytes big-endian).
 * geth also counts `daoForkBlock` and `mergeNetsplitBlock`, which this node's config does not keep (0 or absent on the
 * PoA networks it runs).
 */
export function forkHash(config: ChainConfig, genesis: GenesisRef, time: number): Uint8Array {
  let hash = crc32(genesis.hash);
  const blocks = [...new Set(Object.values(config.forkBlocks))].filter((b) => b > 0).sort((a, b) => a - b);
  for (const b of blocks) hash = crc32(uint64Bytes(b), hash);
  const times = [...new Set(TIME_FORKS.map((f) => config.forkTimes[f]))]
    .filter((t): t is number => t !== undefined && t > genesis.timestamp && t <= time)
    .sort((a, b) => a - b);
  for (const t of times) hash = crc32(uint64Bytes(t), hash);
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, hash >>> 0);
  return out;
}

/** The configuration of time fork `fork`, activated at `at`. */
function forkConfig(config: ChainConfig, genesis: GenesisRef, fork: TimeFork, at: number): ForkConfig {
  // Every block fork has passed by then (geth asks its rules at the London block with the fork's time).
  const rules = forkAt(config, Number.MAX_SAFE_INTEGER, at, config.terminalTotalDifficulty !== undefined);
  const systemContracts: NamedAddress[] = SYSTEM_CONTRACTS.filter((c) => isForkActive(rules, c.since)).map((c) => ({
    name: c.name,
    address: hexAddress(c.address),
  }));
  if (isForkActive(rules, 'Prague')) {
    // geth reports the zero address when the genesis names no deposit contract.
    systemContracts.push({ name: 'DEPOSIT_CONTRACT_ADDRESS', address: config.depositContractAddress ?? new Uint8Array(20) });
  }
  return {
    activationTime: at > genesis.timestamp ? at : 0,
    blobSchedule: blobParams(config, rules) ?? null,
    chainId: config.chainId,
    forkId: forkHash(config, genesis, at),
    precompiles: PRECOMPILES.filter((p) => isForkActive(rules, p.since))
      .map((p) => ({ name: p.name, address: lowAddress(p.address) }))
      .sort(byName),
    systemContracts: systemContracts.sort(byName),
  };
}

/** eth_config's three configurations at head time `headTime`. */
export function forkConfigs(config: ChainConfig, genesis: GenesisRef, headTime: number): ForkConfigs {
  const scheduled = TIME_FORKS.filter((f) => config.forkTimes[f] !== undefined);
  const at = (f: TimeFork): number => config.forkTimes[f] as number;
  // The newest fork at the head's time; Shanghai is the first one eth_config describes.
  let index = -1;
  for (let i = 0; i < TIME_FORKS.length; i++) {
    const t = config.forkTimes[TIME_FORKS[i]];
    if (t !== undefined && t <= headTime) index = i;
  }
  const current = index >= 0 ? forkConfig(config, genesis, TIME_FORKS[index], at(TIME_FORKS[index])) : null;
  const nextFork = TIME_FORKS[index + 1] as TimeFork | undefined;
  if (nextFork === undefined || config.forkTimes[nextFork] === undefined) return { current, next: null, last: null };
  const lastFork = scheduled[scheduled.length - 1];
  return {
    current,
    next: forkConfig(config, genesis, nextFork, at(nextFork)),
    last: forkConfig(config, genesis, lastFork, at(lastFork)),
  };
}
