/**
 * Genesis hashes computed from JSON, never copied: the execution-apis London fixture (genesis.json → parent hash of
 * block 1 in chain.rlp) and every London/Shanghai BlockchainTests case (pre + genesisBlockHeader → stateRoot,
 * genesisRLP, hash).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { decodeRlp, encodeRlp, expectList, splitRlpStream } from '../../core/primitives/rlp.ts';
import { ethereumHeaderCodec, headerHash } from '../../core/chain/header/index.ts';
import { genesisFromBlockchainTest, parseGenesis } from '../../core/chain/genesis/index.ts';
import { conformancePath, jsonFilesUnder, readJson } from '../support/conformance.ts';

describe('execution-apis-london genesis', () => {
  it('default: genesis.json hashes to the parentHash of block 1 in chain.rlp', () => {
    const genesis = parseGenesis(readFileSync(conformancePath('execution-apis-london', 'genesis.json'), 'utf8'));
    const blocks = splitRlpStream(readFileSync(conformancePath('execution-apis-london', 'chain.rlp')));
    const first = expectList(decodeRlp(blocks[0]), 'block');
    const header1 = ethereumHeaderCodec.decode(first[0]);
    expect(header1.number).toBe(1n);
    expect(bytesToHex(headerHash(genesis.genesisHeader))).toBe(bytesToHex(header1.parentHash));
    expect(genesis.config.chainId).toBe(1337n);
    expect(genesis.genesisHeader.baseFeePerGas).toBe(1_000_000_000n);
  });
});

interface BlockchainTestCase {
  network: string;
  genesisBlockHeader: Record<string, unknown> & { hash: string; stateRoot: string };
  genesisRLP: string;
  pre: unknown;
}

const files = jsonFilesUnder(conformancePath('ethereum-tests', 'BlockchainTests'));

describe('BlockchainTests genesis', () => {
  it('found the vectors', () => expect(files.length).toBeGreaterThan(10));
  for (const file of files) {
    const cases = readJson<Record<string, BlockchainTestCase>>(file);
    for (const [name, c] of Object.entries(cases)) {
      if (c.network !== 'London' && c.network !== 'Shanghai') continue;
      it(name, () => {
        const g = genesisFromBlockchainTest(c);
        expect(bytesToHex(g.genesisHeader.stateRoot)).toBe(c.genesisBlockHeader.stateRoot);
        const shanghai = g.genesisHeader.withdrawalsRoot !== undefined;
        const genesisRlp = encodeRlp([
          decodeRlp(ethereumHeaderCodec.encode(g.genesisHeader)) as Uint8Array,
          [],
          [],
          ...(shanghai ? [[]] : []),
        ]);
        expect(bytesToHex(genesisRlp)).toBe(c.genesisRLP);
        expect(bytesToHex(headerHash(g.genesisHeader))).toBe(c.genesisBlockHeader.hash);
        expect(hexToBytes(c.genesisBlockHeader.hash)).toHaveLength(32);
      });
    }
  }
});
