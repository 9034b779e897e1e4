/** genesis.json parsing: defaults as geth applies them, and a typed error naming the key for each bad input. */
import { describe, expect, it } from 'vitest';
import {
  parseGenesis,
  genesisFromBlockchainTest,
  GenesisError,
  INITIAL_BASE_FEE,
  DEFAULT_GENESIS_GAS_LIMIT,
} from '../../../core/chain/genesis/index.ts';
import { conformancePath, readJson } from '../../support/conformance.ts';
import { BLOCK_FORKS_AT_GENESIS } from '../../support/genesisConfig.ts';
import { EMPTY_TRIE_ROOT } from '../../../core/chain/header/index.ts';
import { bytesToHex } from '../../../core/primitives/hex.ts';

const londonConfig = {
  chainId: 2040,
  ...BLOCK_FORKS_AT_GENESIS,
};

const base = (over: Record<string, unknown> = {}, config: Record<string, unknown> = {}): Record<string, unknown> => ({
  config: { ...londonConfig, clique: { period: 2, epoch: 30000 }, ...config },
  alloc: { '0x00000000000000000000000000000000000000aa': { balance: '0x10' } },
  gasLimit: '0x1c9c380',
  difficulty: '0x1',
  extraData: '0x' + '00'.repeat(32) + '11'.repeat(20) + '00'.repeat(65),
  ...over,
});

function errorOf(input: unknown): GenesisError {
  try {
    parseGenesis(input);
  } catch (err) {
    if (err instanceof GenesisError) return err;
    throw err;
  }
  throw new Error('expected a GenesisError');
}

describe('parseGenesis', () => {
  it('default: London clique genesis with defaults', () => {
    const g = parseGenesis(JSON.stringify(base()));
    expect(g.config.chainId).toBe(2040n);
    expect(g.config.clique).toEqual({ period: 2, epoch: 30000 });
    expect(g.config.forkBlocks.London).toBe(0);
    expect(g.genesisHeader.baseFeePerGas).toBe(INITIAL_BASE_FEE);
    expect(g.genesisHeader.withdrawalsRoot).toBeUndefined();
    expect(g.genesisHeader.number).toBe(0n);
    expect(g.alloc.get('00000000000000000000000000000000000000aa')?.balance).toBe(16n);
    expect(bytesToHex(g.genesisHeader.stateRoot)).not.toBe(bytesToHex(EMPTY_TRIE_ROOT));
  });

  it('args: gasLimit 0 takes the geth default; shanghaiTime 0 adds the empty withdrawals root', () => {
    const g = parseGenesis(base({ gasLimit: '0x0' }, { shanghaiTime: 0 }));
    expect(g.genesisHeader.gasLimit).toBe(DEFAULT_GENESIS_GAS_LIMIT);
    expect(bytesToHex(g.genesisHeader.withdrawalsRoot as Uint8Array)).toBe(bytesToHex(EMPTY_TRIE_ROOT));
  });

  it('behavior: storage with zero values gives the same root as without them', () => {
    const slot = '0x' + '00'.repeat(31) + '01';
    const zero = '0x' + '00'.repeat(32);
    const withZero = parseGenesis(base({ alloc: { ['0x' + 'bb'.repeat(20)]: { balance: '1', storage: { [slot]: zero } } } }));
    const without = parseGenesis(base({ alloc: { ['0x' + 'bb'.repeat(20)]: { balance: '1' } } }));
    expect(bytesToHex(withZero.genesisHeader.stateRoot)).toBe(bytesToHex(without.genesisHeader.stateRoot));
  });

  const cases: [string, unknown, string, string][] = [
    ['not JSON', '{', 'GENESIS_BAD_JSON', ''],
    ['unknown top-level key', base({ gaslimit: '0x1' }), 'GENESIS_UNKNOWN_KEY', 'gaslimit'],
    ['unknown fork key', base({}, { pragueTim: 0 }), 'GENESIS_UNKNOWN_KEY', 'config.pragueTim'],
    ['a fork after BPO2', base({}, { shanghaiTime: 0, amsterdamTime: 0 }), 'GENESIS_UNSUPPORTED', 'config.amsterdamTime'],
    [
      'blobSchedule of a later fork',
      base({}, { blobSchedule: { bpo3: { target: 1, max: 2, baseFeeUpdateFraction: 1 } } }),
      'GENESIS_UNSUPPORTED',
      'config.blobSchedule.bpo3',
    ],
    ['missing chainId', base({}, { chainId: undefined }), 'GENESIS_MISSING_FIELD', 'config.chainId'],
    [
      'bad balance',
      base({ alloc: { ['0x' + 'aa'.repeat(20)]: { balance: '0xzz' } } }),
      'GENESIS_BAD_FIELD',
      `alloc.0x${'aa'.repeat(20)}.balance`,
    ],
    ['short address', base({ alloc: { '0xaa': { balance: '1' } } }), 'GENESIS_BAD_FIELD', 'alloc.0xaa'],
    [
      'short storage key',
      base({ alloc: { ['0x' + 'aa'.repeat(20)]: { balance: '1', storage: { '0x01': '0x01' } } } }),
      'GENESIS_BAD_FIELD',
      `alloc.0x${'aa'.repeat(20)}.storage.0x01`,
    ],
    ['unsafe number', base({}, { chainId: 2 ** 60 }), 'GENESIS_BAD_FIELD', 'config.chainId'],
    ['fork gap', base({}, { byzantiumBlock: undefined }), 'GENESIS_FORK_ORDER', 'config.constantinopleBlock'],
    ['forks out of order', base({}, { berlinBlock: 10, londonBlock: 5 }), 'GENESIS_FORK_ORDER', 'config.londonBlock'],
    ['clique without epoch', base({}, { clique: { period: 2 } }), 'GENESIS_MISSING_FIELD', 'config.clique.epoch'],
    ['bad mixHash', base({ mixHash: '0x00' }), 'GENESIS_BAD_FIELD', 'mixHash'],
    ['odd extraData', base({ extraData: '0x0' }), 'GENESIS_BAD_FIELD', 'extraData'],
    ['nonce over 64 bits', base({ nonce: '0x10000000000000000' }), 'GENESIS_BAD_FIELD', 'nonce'],
    ['blob gas before Cancun', base({ blobGasUsed: '0x0' }, {}), 'GENESIS_BAD_FIELD', 'blobGasUsed'],
    ['baseFee before London', base({ baseFeePerGas: '0x1' }, { londonBlock: 5 }), 'GENESIS_BAD_FIELD', 'baseFeePerGas'],
  ];
  for (const [name, input, code, key] of cases) {
    it(`error: ${name}`, () => {
      const err = errorOf(input);
      expect(err.code).toBe(code);
      if (key) expect(err.meta.key).toBe(key);
    });
  }
});

describe('genesisFromBlockchainTest', () => {
  const file = conformancePath('ethereum-tests', 'BlockchainTests', 'ValidBlocks', 'bcValidBlockTest', 'SimpleTx.json');
  const fixture = Object.values(
    readJson<Record<string, { network: string; genesisBlockHeader: Record<string, string>; pre: Record<string, unknown> }>>(file),
  )[0];

  it('error: a fixture whose declared stateRoot disagrees with pre is a GENESIS_MISMATCH naming stateRoot', () => {
    const tampered = { ...fixture, genesisBlockHeader: { ...fixture.genesisBlockHeader, stateRoot: '0x' + '11'.repeat(32) } };
    expect(() => genesisFromBlockchainTest(tampered)).toThrow(
      expect.objectContaining({ code: 'GENESIS_MISMATCH', meta: expect.objectContaining({ key: 'stateRoot' }) }),
    );
  });

  it('error: an unknown network is refused', () => {
    expect(() => genesisFromBlockchainTest({ ...fixture, network: 'Atlantis' })).toThrow(GenesisError);
  });
});
