/**
 * geth's genesis `config` object → ChainConfig. Fork keys must appear in order without gaps (geth's
 * CheckConfigForkOrder); the glacier forks (difficulty-bomb delays only) and mergeNetsplitBlock are optional.
 * Settings we cannot honour are refused by name instead of being silently ignored.
 */
import type { BlockFork, ChainConfig, CliqueConfig, TimeFork } from '../forks.ts';
import { GenesisError } from './errors.ts';
import { asObject, onlyKeys, parseBool, parseBytes, parseSmallUint, parseUint, type JsonObject } from './jsonFields.ts';

/** Block-numbered fork keys in activation order; `optional` ones may be skipped by later forks. */
const BLOCK_FORKS: readonly { key: string; fork: BlockFork | undefined; optional?: boolean }[] = [
  { key: 'homesteadBlock', fork: 'Homestead' },
  { key: 'eip150Block', fork: 'TangerineWhistle' },
  { key: 'eip155Block', fork: 'SpuriousDragon' },
  { key: 'eip158Block', fork: 'SpuriousDragon' },
  { key: 'byzantiumBlock', fork: 'Byzantium' },
  { key: 'constantinopleBlock', fork: 'Constantinople' },
  { key: 'petersburgBlock', fork: 'Petersburg' },
  { key: 'istanbulBlock', fork: 'Istanbul' },
  { key: 'muirGlacierBlock', fork: 'MuirGlacier', optional: true },
  { key: 'berlinBlock', fork: 'Berlin' },
  { key: 'londonBlock', fork: 'London' },
  { key: 'arrowGlacierBlock', fork: 'ArrowGlacier', optional: true },
  { key: 'grayGlacierBlock', fork: 'GrayGlacier', optional: true },
  { key: 'mergeNetsplitBlock', fork: undefined, optional: true },
];

const TIME_FORKS: readonly { key: string; fork: TimeFork }[] = [
  { key: 'shanghaiTime', fork: 'Shanghai' },
  { key: 'cancunTime', fork: 'Cancun' },
];

const KNOWN = new Set([
  'chainId',
  ...BLOCK_FORKS.map((f) => f.key),
  ...TIME_FORKS.map((f) => f.key),
  'terminalTotalDifficulty',
  'terminalTotalDifficultyPassed',
  'clique',
  'ethash',
  'eip150Hash',
  'daoForkBlock',
  'daoForkSupport',
]);

function parseClique(value: unknown): CliqueConfig {
  const obj = asObject(value, 'config.clique');
  onlyKeys(obj, new Set(['period', 'epoch']), 'config.clique');
  if (obj.period === undefined)
    throw new GenesisError('GENESIS_MISSING_FIELD', 'genesis: config.clique.period is required', { key: 'config.clique.period' });
  if (obj.epoch === undefined)
    throw new GenesisError('GENESIS_MISSING_FIELD', 'genesis: config.clique.epoch is required', { key: 'config.clique.epoch' });
  const period = parseSmallUint(obj.period, 'config.clique.period');
  const epoch = parseSmallUint(obj.epoch, 'config.clique.epoch');
  if (epoch === 0)
    throw new GenesisError('GENESIS_BAD_FIELD', 'genesis: config.clique.epoch must be at least 1', { key: 'config.clique.epoch' });
  return { period, epoch };
}

function parseForks(obj: JsonObject, config: ChainConfig): void {
  let previous: { key: string; at: number } | undefined;
  let gap: string | undefined;
  for (const { key, fork, optional } of BLOCK_FORKS) {
    if (obj[key] === undefined || obj[key] === null) {
      if (!optional) gap ??= key;
      continue;
    }
    const at = parseSmallUint(obj[key], `config.${key}`);
    if (gap)
      throw new GenesisError('GENESIS_FORK_ORDER', `genesis: config.${key} is set but the earlier config.${gap} is not`, {
        key: `config.${key}`,
        missing: gap,
      });
    if (previous && at < previous.at) {
      throw new GenesisError('GENESIS_FORK_ORDER', `genesis: config.${key} (${at}) comes before config.${previous.key} (${previous.at})`, {
        key: `config.${key}`,
      });
    }
    if (fork) {
      const existing = config.forkBlocks[fork];
      if (existing !== undefined && existing !== at) {
        throw new GenesisError(
          'GENESIS_UNSUPPORTED',
          'genesis: config.eip155Block and config.eip158Block must be equal (one Spurious Dragon fork)',
          { key: `config.${key}` },
        );
      }
      config.forkBlocks[fork] = at;
    }
    previous = { key, at };
  }
  if (config.forkBlocks.SpuriousDragon !== undefined && (obj.eip155Block === undefined) !== (obj.eip158Block === undefined)) {
    throw new GenesisError('GENESIS_UNSUPPORTED', 'genesis: config.eip155Block and config.eip158Block must be set together', {
      key: 'config.eip155Block',
    });
  }
  let previousTime: { key: string; at: number } | undefined;
  for (const { key, fork } of TIME_FORKS) {
    if (obj[key] === undefined || obj[key] === null) {
      gap ??= key;
      continue;
    }
    const at = parseSmallUint(obj[key], `config.${key}`);
    if (gap)
      throw new GenesisError('GENESIS_FORK_ORDER', `genesis: config.${key} is set but the earlier config.${gap} is not`, {
        key: `config.${key}`,
        missing: gap,
      });
    if (previousTime && at < previousTime.at) {
      throw new GenesisError(
        'GENESIS_FORK_ORDER',
        `genesis: config.${key} (${at}) comes before config.${previousTime.key} (${previousTime.at})`,
        { key: `config.${key}` },
      );
    }
    config.forkTimes[fork] = at;
    previousTime = { key, at };
  }
}

/** Parses and validates the `config` object of a geth genesis.json. */
export function parseChainConfig(value: unknown): ChainConfig {
  const obj = asObject(value, 'config');
  onlyKeys(obj, KNOWN, 'config');
  if (obj.chainId === undefined)
    throw new GenesisError('GENESIS_MISSING_FIELD', 'genesis: config.chainId is required', { key: 'config.chainId' });
  const chainId = parseUint(obj.chainId, 'config.chainId', 64);
  if (chainId === 0n) throw new GenesisError('GENESIS_BAD_FIELD', 'genesis: config.chainId must not be 0', { key: 'config.chainId' });
  const config: ChainConfig = { chainId, forkBlocks: {}, forkTimes: {} };
  parseForks(obj, config);
  if (obj.terminalTotalDifficulty !== undefined && obj.terminalTotalDifficulty !== null) {
    config.terminalTotalDifficulty = parseUint(obj.terminalTotalDifficulty, 'config.terminalTotalDifficulty');
  }
  if (obj.terminalTotalDifficultyPassed !== undefined) parseBool(obj.terminalTotalDifficultyPassed, 'config.terminalTotalDifficultyPassed');
  if (obj.clique !== undefined && obj.clique !== null) config.clique = parseClique(obj.clique);
  if (obj.ethash !== undefined && obj.ethash !== null) {
    onlyKeys(asObject(obj.ethash, 'config.ethash'), new Set(), 'config.ethash');
    if (config.clique)
      throw new GenesisError('GENESIS_BAD_FIELD', 'genesis: config.ethash and config.clique are mutually exclusive', {
        key: 'config.ethash',
      });
  }
  if (obj.eip150Hash !== undefined) parseBytes(obj.eip150Hash, 'config.eip150Hash', 32);
  if (obj.daoForkSupport !== undefined && parseBool(obj.daoForkSupport, 'config.daoForkSupport')) {
    throw new GenesisError('GENESIS_UNSUPPORTED', 'genesis: config.daoForkSupport (the mainnet DAO state change) is not supported', {
      key: 'config.daoForkSupport',
    });
  }
  if (obj.daoForkBlock !== undefined && obj.daoForkBlock !== null) parseSmallUint(obj.daoForkBlock, 'config.daoForkBlock');
  if ((config.forkTimes.Shanghai !== undefined || config.forkTimes.Cancun !== undefined) && config.forkBlocks.London === undefined) {
    throw new GenesisError('GENESIS_FORK_ORDER', 'genesis: config.shanghaiTime requires config.londonBlock', {
      key: 'config.shanghaiTime',
    });
  }
  return config;
}
