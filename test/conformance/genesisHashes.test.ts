/**
 * Genesis hashes computed from JSON, never copied: the execution-apis London fixture (genesis.json → parent hash of
 * block 1 in chain.rlp) and every London/Shanghai BlockchainTests case (pre + genesisBlockHeader → stateRoot,
 * genesisRLP, hash).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { splitRlpStream } from '../../core/primitives/rlp.ts';
import { XoneError } from '../../core/errors.ts';
import { headerHash } from '../../core/chain/header/index.ts';
import { decodeBlock, encodeBlock, verifyBodyRoots } from '../../core/chain/block/index.ts';
import { genesisFromBlockchainTest, parseGenesis } from '../../core/chain/genesis/index.ts';
import { conformancePath, jsonFilesUnder, readJson } from '../support/conformance.ts';

describe('execution-apis-london genesis', () => {
  it('default: genesis.json hashes to the parentHash of block 1 in chain.rlp', () => {
    const genesis = parseGenesis(readFileSync(conformancePath('execution-apis-london', 'genesis.json'), 'utf8'));
    const blocks = splitRlpStream(readFileSync(conformancePath('execution-apis-london', 'chain.rlp')));
    const header1 = decodeBlock(blocks[0]).header;
    expect(header1.number).toBe(1n);
    expect(bytesToHex(headerHash(genesis.genesisHeader))).toBe(bytesToHex(header1.parentHash));
    expect(genesis.config.chainId).toBe(1337n);
    expect(genesis.genesisHeader.baseFeePerGas).toBe(1_000_000_000n);
  });

  it('behavior: every block of chain.rlp decodes strictly, re-encodes byte for byte, links to its parent and matches its roots', () => {
    const genesis = parseGenesis(readFileSync(conformancePath('execution-apis-london', 'genesis.json'), 'utf8'));
    let parent = headerHash(genesis.genesisHeader);
    for (const bytes of splitRlpStream(readFileSync(conformancePath('execution-apis-london', 'chain.rlp')))) {
      const block = decodeBlock(bytes);
      expect(bytesToHex(block.header.parentHash)).toBe(bytesToHex(parent));
      expect(bytesToHex(encodeBlock(block))).toBe(bytesToHex(bytes));
      verifyBodyRoots(block);
      parent = headerHash(block.header);
    }
  });
});

interface BlockchainTestCase {
  network: string;
  blocks: { rlp: string; expectException?: string; blockHeader?: { hash: string } }[];
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
        const withdrawals = g.genesisHeader.withdrawalsRoot !== undefined ? [] : undefined;
        const genesisRlp = encodeBlock({ header: g.genesisHeader, transactions: [], ommers: [], withdrawals });
        expect(bytesToHex(genesisRlp)).toBe(c.genesisRLP);
        expect(bytesToHex(headerHash(g.genesisHeader))).toBe(c.genesisBlockHeader.hash);
        expect(hexToBytes(c.genesisBlockHeader.hash)).toHaveLength(32);
        // Valid blocks: strict decode, byte-exact re-encode, the fixture's hash, recomputed body roots.
        for (const b of c.blocks) {
          if (b.expectException !== undefined || b.blockHeader === undefined) continue;
          const bytes = hexToBytes(b.rlp);
          const block = decodeBlock(bytes);
          expect(bytesToHex(headerHash(block.header))).toBe(b.blockHeader.hash);
          expect(bytesToHex(encodeBlock(block))).toBe(b.rlp);
          verifyBodyRoots(block);
        }
      });
    }
  }
});

/** Invalid blocks whose fault is a header commitment to the body: verifyBodyRoots must name that commitment. */
const BODY_ROOT_FAULTS: Record<string, string> = {
  InvalidTransactionsRoot: 'transactionsRoot',
  InvalidUnclesHash: 'ommersHash',
  PostParisUncleHashIsNotEmpty: 'ommersHash',
};

describe('BlockchainTests invalid blocks', () => {
  it('behavior: every invalid block decodes or is refused with a typed error; body-root faults are named', () => {
    let named = 0;
    for (const file of files) {
      for (const c of Object.values(readJson<Record<string, BlockchainTestCase>>(file))) {
        if (c.network !== 'London' && c.network !== 'Shanghai') continue;
        for (const b of c.blocks) {
          if (b.expectException === undefined) continue;
          const field = BODY_ROOT_FAULTS[b.expectException];
          let error: unknown;
          try {
            verifyBodyRoots(decodeBlock(hexToBytes(b.rlp)));
          } catch (err) {
            error = err;
          }
          if (error !== undefined) expect(error).toBeInstanceOf(XoneError);
          if (field) {
            expect(error).toMatchObject({ code: 'BLOCK_ROOT_MISMATCH', meta: { field } });
            named++;
          }
        }
      }
    }
    expect(named).toBeGreaterThanOrEqual(4);
  });
});
