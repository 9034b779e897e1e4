/**
 * geth-format genesis.json → chain config, genesis header and alloc, following geth's Genesis.ToBlock
 * (core/genesis.go): defaults for gasLimit (4,712,388) and difficulty (131,072 unless mixHash is set), baseFeePerGas
 * 1 gwei when London is active at genesis, the empty withdrawals root when Shanghai is, and the state root computed
 * from the alloc by the trie. Every key is checked and errors name it.
 */
import { bigIntToBytes, padLeft } from '../../primitives/hex.ts';
import { forkAt, isForkActive, type ChainConfig } from '../forks.ts';
import { EMPTY_REQUESTS_HASH } from '../block/requests.ts';
import { EMPTY_BLOOM, EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT, type Header } from '../header/types.ts';
import { parseAlloc, type GenesisAlloc } from './alloc.ts';
import { parseChainConfig } from './chainConfig.ts';
import { GenesisError } from './errors.ts';
import { asObject, onlyKeys, parseBytes, parseUint } from './jsonFields.ts';
import { allocStateRoot } from './stateRoot.ts';

export interface Genesis {
  config: ChainConfig;
  genesisHeader: Header;
  alloc: GenesisAlloc;
}

/** geth's params.GenesisGasLimit and params.GenesisDifficulty, InitialBaseFee. */
export const DEFAULT_GENESIS_GAS_LIMIT = 4_712_388n;
export const DEFAULT_GENESIS_DIFFICULTY = 131_072n;
export const INITIAL_BASE_FEE = 1_000_000_000n;

const TOP_KEYS = new Set([
  'config',
  'nonce',
  'timestamp',
  'extraData',
  'gasLimit',
  'difficulty',
  'mixHash',
  'coinbase',
  'alloc',
  'number',
  'gasUsed',
  'parentHash',
  'baseFeePerGas',
  'excessBlobGas',
  'blobGasUsed',
]);

/** Parses a genesis.json (text or already-parsed value). */
export function parseGenesis(input: string | unknown): Genesis {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (err) {
      throw new GenesisError('GENESIS_BAD_JSON', `genesis: not valid JSON: ${(err as Error).message}`);
    }
  }
  const obj = asObject(value, 'genesis');
  onlyKeys(obj, TOP_KEYS, '');
  if (obj.config === undefined) throw new GenesisError('GENESIS_MISSING_FIELD', 'genesis: config is required', { key: 'config' });
  if (obj.alloc === undefined) throw new GenesisError('GENESIS_MISSING_FIELD', 'genesis: alloc is required', { key: 'alloc' });
  const config = parseChainConfig(obj.config);
  const alloc = parseAlloc(obj.alloc);

  const uint = (key: string, bits: number, fallback: bigint): bigint =>
    obj[key] === undefined || obj[key] === null ? fallback : parseUint(obj[key], key, bits);
  const bytes = (key: string, length?: number): Uint8Array | undefined =>
    obj[key] === undefined ? undefined : parseBytes(obj[key], key, length);

  const number = uint('number', 64, 0n);
  const timestamp = uint('timestamp', 64, 0n);
  const mixHash = bytes('mixHash', 32) ?? new Uint8Array(32);
  let gasLimit = uint('gasLimit', 64, 0n);
  if (gasLimit === 0n) gasLimit = DEFAULT_GENESIS_GAS_LIMIT;
  let difficulty = uint('difficulty', 256, -1n);
  if (difficulty === -1n) difficulty = mixHash.every((b) => b === 0) ? DEFAULT_GENESIS_DIFFICULTY : 0n;

  const fork = forkAt(config, Number(number), Number(timestamp));
  const header: Header = {
    parentHash: bytes('parentHash', 32) ?? new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: bytes('coinbase', 20) ?? new Uint8Array(20),
    stateRoot: allocStateRoot(alloc),
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: EMPTY_BLOOM,
    difficulty,
    number,
    gasLimit,
    gasUsed: uint('gasUsed', 64, 0n),
    timestamp,
    extraData: bytes('extraData') ?? new Uint8Array(0),
    mixHash,
    nonce: padLeft(bigIntToBytes(uint('nonce', 64, 0n)), 8),
  };
  if (isForkActive(fork, 'London')) header.baseFeePerGas = uint('baseFeePerGas', 256, INITIAL_BASE_FEE);
  else if (obj.baseFeePerGas !== undefined && obj.baseFeePerGas !== null) {
    throw new GenesisError('GENESIS_BAD_FIELD', 'genesis: baseFeePerGas is set but London is not active at genesis', {
      key: 'baseFeePerGas',
    });
  }
  if (isForkActive(fork, 'Shanghai')) header.withdrawalsRoot = EMPTY_TRIE_ROOT;
  if (isForkActive(fork, 'Cancun')) {
    // geth's ToBlock: zero unless given; no beacon chain precedes a genesis block.
    header.blobGasUsed = uint('blobGasUsed', 64, 0n);
    header.excessBlobGas = uint('excessBlobGas', 64, 0n);
    header.parentBeaconBlockRoot = new Uint8Array(32);
  } else {
    for (const key of ['blobGasUsed', 'excessBlobGas']) {
      if (obj[key] !== undefined && obj[key] !== null) {
        throw new GenesisError('GENESIS_BAD_FIELD', `genesis: ${key} is set but Cancun is not active at genesis`, { key });
      }
    }
  }
  if (isForkActive(fork, 'Prague')) header.requestsHash = EMPTY_REQUESTS_HASH;
  return { config, genesisHeader: header, alloc };
}
