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
] as const;

export type Fork = (typeof FORKS)[number];

/** Forks activated by block number (geth's `<name>Block` genesis keys). */
export type BlockFork = Exclude<Fork, 'Frontier' | 'Paris' | 'Shanghai' | 'Cancun'>;
/** Forks activated by timestamp (geth's `<name>Time` genesis keys). */
export type TimeFork = 'Shanghai' | 'Cancun';

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
};

/** True when fork `current` includes the rules introduced by `since`. */
export function isForkActive(current: Fork, since: Fork): boolean {
  return (ORDER.get(current) as number) >= (ORDER.get(since) as number);
}

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
    if (f === 'Shanghai' || f === 'Cancun') {
      const at = config.forkTimes[f];
      if (at !== undefined && timestamp >= at) fork = f;
      continue;
    }
    const at = config.forkBlocks[f];
    if (at !== undefined && number >= at) fork = f;
  }
  return fork;
}

/** A config with every fork up to and including `fork` active from genesis (for test vectors). */
export function configWithForkFromGenesis(fork: Fork, chainId = 1n): ChainConfig {
  const config: ChainConfig = { chainId, forkBlocks: {}, forkTimes: {} };
  for (const f of FORKS) {
    if (!isForkActive(fork, f) || f === 'Frontier') continue;
    if (f === 'Paris') config.terminalTotalDifficulty = 0n;
    else if (f === 'Shanghai' || f === 'Cancun') config.forkTimes[f] = 0;
    else config.forkBlocks[f] = 0;
  }
  return config;
}
