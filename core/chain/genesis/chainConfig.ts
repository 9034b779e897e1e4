/**
 * geth's genesis `config` object → ChainConfig. Fork keys must appear in order without gaps (geth's
 * CheckConfigForkOrder); the glacier forks (difficulty-bomb delays only) and mergeNetsplitBlock are optional.
 * Settings we cannot honour are refused by name instead of being silently ignored.
 */
import {
  BLOB_FORKS,
  type BlobFork,
  type BlobParams,
  type BlockFork,
  type ChainConfig,
  type CliqueConfig,
  type TimeFork,
} from '../forks.ts';
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
  { key: 'pragueTime', fork: 'Prague' },
  { key: 'osakaTime', fork: 'Osaka' },
  { key: 'bpo1Time', fork: 'BPO1' },
  { key: 'bpo2Time', fork: 'BPO2' },
];

/** geth's keys of forks after the newest this node runs: refused naming the fork, never ignored. */
const LATER_FORKS: Readonly<Record<string, string>> = {
  bpo3Time: 'BPO3',
  bpo4Time: 'BPO4',
  bpo5Time: 'BPO5',
  amsterdamTime: 'Amsterdam',
  verkleTime: 'Verkle',
  enableVerkleAtGenesis: 'Verkle',
};

/** `blobSchedule` keys (geth's lower-case fork names). */
const BLOB_SCHEDULE_KEYS: Readonly<Record<string, BlobFork>> = Object.fromEntries(BLOB_FORKS.map((f) => [f.toLowerCase(), f]));

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
  'blobSchedule',
  'depositContractAddress',
]);

function parseBlobSchedule(value: unknown): Partial<Record<BlobFork, BlobParams>> {
  const obj = asObject(value, 'config.blobSchedule');
  const schedule: Partial<Record<BlobFork, BlobParams>> = {};
  for (const [key, entry] of Object.entries(obj)) {
    const fork = BLOB_SCHEDULE_KEYS[key];
    const where = `config.blobSchedule.${key}`;
    if (fork === undefined) {
      throw new GenesisError('GENESIS_UNSUPPORTED', `genesis: ${where}: fork ${key} is not supported by this node (it runs up to BPO2)`, {
        key: where,
      });
    }
    const e = asObject(entry, where);
    onlyKeys(e, new Set(['target', 'max', 'baseFeeUpdateFraction']), where);
    for (const k of ['target', 'max', 'baseFeeUpdateFraction']) {
      if (e[k] === undefined)
        throw new GenesisError('GENESIS_MISSING_FIELD', `genesis: ${where}.${k} is required`, { key: `${where}.${k}` });
    }
    const params: BlobParams = {
      target: parseSmallUint(e.target, `${where}.target`),
      max: parseSmallUint(e.max, `${where}.max`),
      baseFeeUpdateFraction: parseUint(e.baseFeeUpdateFraction, `${where}.baseFeeUpdateFraction`, 64),
    };
    if (params.target > params.max || params.baseFeeUpdateFraction === 0n) {
      throw new GenesisError('GENESIS_BAD_FIELD', `genesis: ${where}: target must not exceed max and baseFeeUpdateFraction must be > 0`, {
        key: where,
      });
    }
    schedule[fork] = params;
  }
  return schedule;
}

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
  for (const [key, fork] of Object.entries(LATER_FORKS)) {
    if (obj[key] !== undefined && obj[key] !== null && obj[key] !== false) {
      throw new GenesisError(
        'GENESIS_UNSUPPORTED',
        `genesis: config.${key}: fork ${fork} is not supported by this node (it runs up to BPO2)`,
        {
          key: `config.${key}`,
          fork,
        },
      );
    }
  }
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
  if (obj.blobSchedule !== undefined && obj.blobSchedule !== null) config.blobSchedule = parseBlobSchedule(obj.blobSchedule);
  if (obj.depositContractAddress !== undefined && obj.depositContractAddress !== null) {
    config.depositContractAddress = parseBytes(obj.depositContractAddress, 'config.depositContractAddress', 20);
  }
  if (obj.daoForkSupport !== undefined && parseBool(obj.daoForkSupport, 'config.daoForkSupport')) {
    throw new GenesisError('GENESIS_UNSUPPORTED', 'genesis: config.daoForkSupport (the mainnet DAO state change) is not supported', {
      key: 'config.daoForkSupport',
    });
  }
  if (obj.daoForkBlock !== undefined && obj.daoForkBlock !== null) parseSmallUint(obj.daoForkBlock, 'config.daoForkBlock');
  if (Object.keys(config.forkTimes).length > 0 && config.forkBlocks.London === undefined) {
    throw new GenesisError('GENESIS_FORK_ORDER', 'genesis: config.shanghaiTime requires config.londonBlock', {
      key: 'config.shanghaiTime',
    });
  }
  return config;
}
