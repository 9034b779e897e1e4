/**
 * Genesis of an ethereum/tests BlockchainTests case: the header is rebuilt from `pre` (state root by the trie) and the
 * fork's rules (empty roots, baseFee from London, withdrawalsRoot from Shanghai, the empty requestsHash from Prague),
 * taking only the free choices (coinbase, gas limit, timestamp, extra data, mix hash, nonce, difficulty, base fee,
 * Cancun's blob gas fields and parent beacon root) from `genesisBlockHeader`;
 * then every field is compared with the fixture's header, and a difference is a GENESIS_MISMATCH naming the field.
 */
import { bytesToHex, equalBytes } from '../../primitives/hex.ts';
import { configWithForkFromGenesis, isForkActive, TEST_FORK_ALIASES, type ChainConfig, type Fork } from '../forks.ts';
import { headerFromTestJson } from '../header/testJson.ts';
import { EMPTY_REQUESTS_HASH } from '../block/requests.ts';
import { EMPTY_BLOOM, EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT, type Header } from '../header/types.ts';
import { parseAlloc, type GenesisAlloc } from './alloc.ts';
import { GenesisError } from './errors.ts';
import { asObject } from './jsonFields.ts';
import { allocStateRoot } from './stateRoot.ts';

export interface BlockchainTestGenesis {
  fork: Fork;
  config: ChainConfig;
  genesisHeader: Header;
  alloc: GenesisAlloc;
}

function show(v: unknown): string {
  return v instanceof Uint8Array ? bytesToHex(v) : String(v);
}

/** Builds and checks the genesis of one BlockchainTests case (`network`, `genesisBlockHeader`, `pre`). */
export function genesisFromBlockchainTest(testCase: { network: string; genesisBlockHeader: unknown; pre: unknown }): BlockchainTestGenesis {
  const fork = TEST_FORK_ALIASES[testCase.network];
  if (!fork) throw new GenesisError('GENESIS_UNSUPPORTED', `genesis: unknown test network ${testCase.network}`, { key: 'network' });
  const config = configWithForkFromGenesis(fork);
  const alloc = parseAlloc(testCase.pre, { looseStorage: true, where: 'pre' });
  const declared = headerFromTestJson(asObject(testCase.genesisBlockHeader, 'genesisBlockHeader')).header;
  const header: Header = {
    parentHash: new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: declared.coinbase,
    stateRoot: allocStateRoot(alloc),
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: EMPTY_BLOOM,
    difficulty: declared.difficulty,
    number: 0n,
    gasLimit: declared.gasLimit,
    gasUsed: 0n,
    timestamp: declared.timestamp,
    extraData: declared.extraData,
    mixHash: declared.mixHash,
    nonce: declared.nonce,
  };
  if (isForkActive(fork, 'London')) header.baseFeePerGas = declared.baseFeePerGas;
  if (isForkActive(fork, 'Shanghai')) header.withdrawalsRoot = EMPTY_TRIE_ROOT;
  if (isForkActive(fork, 'Cancun')) {
    header.blobGasUsed = declared.blobGasUsed;
    header.excessBlobGas = declared.excessBlobGas;
    header.parentBeaconBlockRoot = declared.parentBeaconBlockRoot;
  }
  if (isForkActive(fork, 'Prague')) header.requestsHash = EMPTY_REQUESTS_HASH;
  for (const key of Object.keys({ ...header, ...declared }) as (keyof Header)[]) {
    const ours = header[key];
    const theirs = declared[key];
    const same = ours instanceof Uint8Array && theirs instanceof Uint8Array ? equalBytes(ours, theirs) : ours === theirs;
    if (!same) {
      throw new GenesisError('GENESIS_MISMATCH', `genesis: computed ${key} ${show(ours)} differs from the fixture's ${show(theirs)}`, {
        key,
        computed: show(ours),
        fixture: show(theirs),
      });
    }
  }
  return { fork, config, genesisHeader: header, alloc };
}
