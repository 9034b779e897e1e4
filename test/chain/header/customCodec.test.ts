/** The header codec seam: a chain whose headers carry extra fields (XDPoS-style) plugs in its own codec. */
import { describe, expect, it } from 'vitest';
import { decodeBlock, encodeBlock } from '../../../core/chain/block/index.ts';
import {
  decodeEthereumHeaderFields,
  EMPTY_BLOOM,
  EMPTY_OMMERS_HASH,
  EMPTY_TRIE_ROOT,
  ethereumHeaderFields,
  headerHash,
  type Header,
  type HeaderCodec,
} from '../../../core/chain/header/index.ts';
import { bytesToHex } from '../../../core/primitives/hex.ts';
import { encodeRlp, expectBytes, expectList, type RlpItem } from '../../../core/primitives/rlp.ts';
import { keccak256 } from '../../../core/primitives/keccak.ts';

interface XdcLikeHeader extends Header {
  validators: Uint8Array;
  validator: Uint8Array;
  penalties: Uint8Array;
}

/** London fields followed by three byte strings, as XDPoS v1 headers append them. */
const xdcLikeCodec: HeaderCodec<XdcLikeHeader> = {
  name: 'xdc-like',
  decode(item: RlpItem, rlp?: Uint8Array): XdcLikeHeader {
    const f = expectList(item, 'header', 19);
    return {
      ...decodeEthereumHeaderFields(f.slice(0, 16)),
      validators: expectBytes(f[16], 'header.validators'),
      validator: expectBytes(f[17], 'header.validator'),
      penalties: expectBytes(f[18], 'header.penalties'),
      rlp: rlp ?? encodeRlp(f),
    };
  },
  encode(h: XdcLikeHeader): Uint8Array {
    return h.rlp ?? encodeRlp([...ethereumHeaderFields(h), h.validators, h.validator, h.penalties]);
  },
};

describe('custom header codec', () => {
  it('default: blocks decode and hash through the chain codec', () => {
    const header: XdcLikeHeader = {
      parentHash: new Uint8Array(32),
      ommersHash: EMPTY_OMMERS_HASH,
      coinbase: new Uint8Array(20),
      stateRoot: EMPTY_TRIE_ROOT,
      transactionsRoot: EMPTY_TRIE_ROOT,
      receiptsRoot: EMPTY_TRIE_ROOT,
      logsBloom: EMPTY_BLOOM,
      difficulty: 1n,
      number: 5n,
      gasLimit: 50_000_000n,
      gasUsed: 0n,
      timestamp: 9n,
      extraData: new Uint8Array(32),
      mixHash: new Uint8Array(32),
      nonce: new Uint8Array(8),
      baseFeePerGas: 12_500_000_000n,
      validators: new Uint8Array(40).fill(7),
      validator: new Uint8Array(65).fill(8),
      penalties: new Uint8Array(0),
    };
    const bytes = encodeBlock({ header, transactions: [], ommers: [] }, xdcLikeCodec);
    const block = decodeBlock(bytes, xdcLikeCodec);
    expect(block.header.validators).toEqual(header.validators);
    expect(bytesToHex(headerHash(block.header, xdcLikeCodec))).toBe(bytesToHex(keccak256(xdcLikeCodec.encode(header))));
    expect(() => decodeBlock(bytes)).toThrow(/expected 15, 16, 17, 20 or 21 fields/);
  });
});
