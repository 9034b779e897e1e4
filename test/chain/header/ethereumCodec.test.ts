/** Header codec: round trips per field count, kept RLP, and errors naming the field. */
import { describe, expect, it } from 'vitest';
import {
  ethereumHeaderCodec,
  headerHash,
  EMPTY_OMMERS_HASH,
  EMPTY_TRIE_ROOT,
  EMPTY_BLOOM,
  type Header,
  HeaderError,
} from '../../../core/chain/header/index.ts';
import { bytesToHex } from '../../../core/primitives/hex.ts';
import { decodeRlp, encodeRlp, type RlpInput, RlpError } from '../../../core/primitives/rlp.ts';
import { keccak256 } from '../../../core/primitives/keccak.ts';

const header: Header = {
  parentHash: new Uint8Array(32).fill(1),
  ommersHash: EMPTY_OMMERS_HASH,
  coinbase: new Uint8Array(20).fill(2),
  stateRoot: new Uint8Array(32).fill(3),
  transactionsRoot: EMPTY_TRIE_ROOT,
  receiptsRoot: EMPTY_TRIE_ROOT,
  logsBloom: EMPTY_BLOOM,
  difficulty: 2n,
  number: 1000n,
  gasLimit: 30_000_000n,
  gasUsed: 21_000n,
  timestamp: 1_700_000_000n,
  extraData: new Uint8Array(97),
  mixHash: new Uint8Array(32),
  nonce: new Uint8Array(8),
};

describe('ethereumHeaderCodec', () => {
  for (const [name, extra] of [
    ['pre-London', {}],
    ['London', { baseFeePerGas: 7n }],
    ['Shanghai', { baseFeePerGas: 7n, withdrawalsRoot: EMPTY_TRIE_ROOT }],
  ] as const) {
    it(`default: ${name} round trip keeps the exact RLP`, () => {
      const h: Header = { ...header, ...extra };
      const rlp = ethereumHeaderCodec.encode(h);
      const decoded = ethereumHeaderCodec.decode(decodeRlp(rlp));
      expect(decoded).toEqual({ ...h, rlp });
      expect(bytesToHex(headerHash(decoded))).toBe(bytesToHex(keccak256(rlp)));
    });
  }

  it('error: wrong field size names the field', () => {
    const fields = decodeRlp(ethereumHeaderCodec.encode(header)) as RlpInput[];
    fields[3] = new Uint8Array(31);
    expect(() => ethereumHeaderCodec.decode(decodeRlp(encodeRlp(fields)))).toThrow(/header\.stateRoot: expected 32 bytes/);
    const f2 = [...fields];
    f2[9] = Uint8Array.of(0, 1);
    expect(() => ethereumHeaderCodec.decode(decodeRlp(encodeRlp(f2)))).toThrow(RlpError);
  });

  it('error: field counts outside 15-17 and withdrawalsRoot without baseFee', () => {
    const fields = decodeRlp(ethereumHeaderCodec.encode(header)) as RlpInput[];
    expect(() => ethereumHeaderCodec.decode(decodeRlp(encodeRlp(fields.slice(0, 14))))).toThrow(HeaderError);
    expect(() =>
      ethereumHeaderCodec.decode(decodeRlp(encodeRlp([...fields, new Uint8Array(1), new Uint8Array(32), new Uint8Array(1)]))),
    ).toThrow(/expected 15, 16, 17, 20 or 21 fields/);
    expect(() => ethereumHeaderCodec.encode({ ...header, withdrawalsRoot: EMPTY_TRIE_ROOT })).toThrow(HeaderError);
  });
});
