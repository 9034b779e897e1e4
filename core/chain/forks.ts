/**
 * Fork names and the chain configuration that says when each activates. The fork-rule table is a per-chain parameter
 * (ARCHITECTURE.md, "Chain"): code asks "is rule X active at (number, timestamp)?" through `forkAt`, never a constant.
 * Names follow geth's genesis keys; the ethereum/tests aliases (EIP150, EIP158, ConstantinopleFix, Merge) map onto them.
 */

/** Every fork we know, in activation order. */
const FORKS = [
  'Frontier',
  'Homestead',
  'TangerineWhistle',
  'SpuriousDragon',
  'Byzantium',
  'Constantinople',
  'Petersburg',
  'Istanbul',
  'MuirGlacier',
  'Berlin',
  'London',
  'ArrowGlacier',
  'GrayGlacier',
  'Paris',
  'Shanghai',
  'Cancun',
  'Prague',
  'Osaka',
  'BPO1',
  'BPO2',
] as const;

export type Fork = (typeof FORKS)[number];

/** Forks activated by timestamp (geth's `<name>Time` genesis keys), in order. */
export const TIME_FORKS = ['Shanghai', 'Cancun', 'Prague', 'Osaka', 'BPO1', 'BPO2'] as const;
export type TimeFork = (typeof TIME_FORKS)[number];
/** Forks activated by block number (geth's `<name>Block` genesis keys). */
export type BlockFork = Exclude<Fork, 'Frontier' | 'Paris' | TimeFork>;
const TIME_FORK_SET: ReadonlySet<Fork> = new Set(TIME_FORKS);

/** The newest fork this node runs (the dev chain's default, as anvil's). */
export const NEWEST_FORK: Fork = 'Osaka';

const ORDER: ReadonlyMap<Fork, number> = new Map(FORKS.map((f, i) => [f, i]));

/** ethereum/tests fork names → ours. */
export const TEST_FORK_ALIASES: Readonly<Record<string, Fork>> = {
  Frontier: 'Frontier',
  Homestead: 'Homestead',
  EIP150: 'TangerineWhistle',
  EIP158: 'SpuriousDragon',
  Byzantium: 'Byzantium',
  Constantinople: 'Constantinople',
  ConstantinopleFix: 'Petersburg',
  Istanbul: 'Istanbul',
  Berlin: 'Berlin',
  London: 'London',
  Paris: 'Paris',
  Merge: 'Paris',
  Shanghai: 'Shanghai',
  Cancun: 'Cancun',
  Prague: 'Prague',
  Osaka: 'Osaka',
};

/** True when fork `current` includes the rules introduced by `since`. */
export function isForkActive(current: Fork, since: Fork): boolean {
  return (ORDER.get(current) as number) >= (ORDER.get(since) as number);
}

/** One entry of geth's `blobSchedule` (EIP-7840): blobs per block targeted and allowed, and the fee's update fraction. */
export interface BlobParams {
  target: number;
  max: number;
  baseFeeUpdateFraction: bigint;
}

/** Forks that change blob parameters. */
export type BlobFork = 'Cancun' | 'Prague' | 'Osaka' | 'BPO1' | 'BPO2';
export const BLOB_FORKS: readonly BlobFork[] = ['Cancun', 'Prague', 'Osaka', 'BPO1', 'BPO2'];

/** Mainnet's values (EIP-4844, EIP-7691, EIP-7892 BPO1/BPO2): what a genesis without `blobSchedule` gets. */
export const DEFAULT_BLOB_SCHEDULE: Readonly<Record<BlobFork, BlobParams>> = {
  Cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3_338_477n },
  Prague: { target: 6, max: 9, baseFeeUpdateFraction: 5_007_716n },
  Osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5_007_716n },
  BPO1: { target: 10, max: 15, baseFeeUpdateFraction: 8_346_193n },
  BPO2: { target: 14, max: 21, baseFeeUpdateFraction: 11_684_671n },
};

export interface CliqueConfig {
  /** Seconds between blocks. */
  period: number;
  /** Blocks between checkpoints (signer list in extraData, votes reset). */
  epoch: number;
}

/** Chain configuration parsed from a geth-style genesis.json `config` object. */
export interface ChainConfig {
  chainId: bigint;
  /** Activation block of each block-numbered fork; absent = never. */
  forkBlocks: Partial<Record<BlockFork, number>>;
  /** Activation timestamp (seconds) of each time-based fork; absent = never. */
  forkTimes: Partial<Record<TimeFork, number>>;
  /** Proof-of-stake transition marker; when set and reached, the chain is past Paris. */
  terminalTotalDifficulty?: bigint;
  /** Set for Clique/PoA chains. */
  clique?: CliqueConfig;
  /** Blob parameters per fork (geth's `blobSchedule`); a fork missing here uses DEFAULT_BLOB_SCHEDULE. */
  blobSchedule?: Partial<Record<BlobFork, BlobParams>>;
  /** EIP-6110: the contract whose DepositEvent logs become deposit requests (Prague); absent = none. */
  depositContractAddress?: Uint8Array;
}

/** The blob parameters in force under `fork` (undefined before Cancun). */
export function blobParams(config: Pick<ChainConfig, 'blobSchedule'>, fork: Fork): BlobParams | undefined {
  let params: BlobParams | undefined;
  for (const f of BLOB_FORKS) {
    if (!isForkActive(fork, f)) break;
    params = config.blobSchedule?.[f] ?? DEFAULT_BLOB_SCHEDULE[f];
  }
  return params;
}

/** The fork in force for a block at `number` with `timestamp`. */
export function forkAt(config: ChainConfig, number: number, timestamp: number, pastTerminalDifficulty = false): Fork {
  let fork: Fork = 'Frontier';
  for (const f of FORKS) {
    if (f === 'Frontier') continue;
    if (f === 'Paris') {
      if (pastTerminalDifficulty || (config.terminalTotalDifficulty === 0n && isForkActive(fork, 'London'))) fork = 'Paris';
      continue;
    }
    if (TIME_FORK_SET.has(f)) {
      const at = config.forkTimes[f as TimeFork];
      if (at !== undefined && timestamp >= at) fork = f;
      continue;
    }
    const at = config.forkBlocks[f as BlockFork];
    if (at !== undefined && number >= at) fork = f;
  }
  return fork;
}

/** Mainnet's EIP-6110 deposit contract, 0x00000000219ab540356cBB839Cbe05303d7705Fa. */
const MAINNET_DEPOSIT_CONTRACT = Uint8Array.from(Buffer.from('00000000219ab540356cbb839cbe05303d7705fa', 'hex'));

/** A config with every fork up to and including `fork` active from genesis (for test vectors). */
export function configWithForkFromGenesis(fork: Fork, chainId = 1n): ChainConfig {
  const config: ChainConfig = { chainId, forkBlocks: {}, forkTimes: {} };
  for (const f of FORKS) {
    if (!isForkActive(fork, f) || f === 'Frontier') continue;
    if (f === 'Paris') config.terminalTotalDifficulty = 0n;
    else if (TIME_FORK_SET.has(f)) config.forkTimes[f as TimeFork] = 0;
    else config.forkBlocks[f as BlockFork] = 0;
  }
  // Mainnet's deposit contract, as the test fillers assume (EIP-6110).
  if (isForkActive(fork, 'Prague')) config.depositContractAddress = MAINNET_DEPOSIT_CONTRACT;
  return config;
}
