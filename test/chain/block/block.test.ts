/** Block codec and body roots: round trips with real signed transactions, and typed errors naming the part. */
import { describe, expect, it } from 'vitest';
import {
  decodeBlock,
  decodeBlockBody,
  encodeBlock,
  encodeBlockBody,
  transactionsRoot,
  verifyBodyRoots,
  BlockError,
  type Block,
} from '../../../core/chain/block/index.ts';
import { EMPTY_BLOOM, EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT, headerHash, type Header } from '../../../core/chain/header/index.ts';
import { makeSignedTransfers } from '../../../core/chain/transaction/testing.ts';
import { withdrawalFields, withdrawalsRoot, type Withdrawal } from '../../../core/chain/withdrawal.ts';
import { rlpIndexKey, Trie } from '../../../core/trie/index.ts';
import { bytesToHex } from '../../../core/primitives/hex.ts';
import { decodeRlp, encodeRlp, type RlpInput } from '../../../core/primitives/rlp.ts';
import { keccak256 } from '../../../core/primitives/keccak.ts';

const transactions = makeSignedTransfers(20, 2040n, { senders: 4 });
const withdrawals: Withdrawal[] = [
  { index: 0n, validatorIndex: 5n, address: new Uint8Array(20).fill(1), amount: 32_000_000_000n },
  { index: 1n, validatorIndex: 6n, address: new Uint8Array(20).fill(2), amount: 1n },
];

function header(extra: Partial<Header> = {}): Header {
  return {
    parentHash: new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: new Uint8Array(20),
    stateRoot: EMPTY_TRIE_ROOT,
    transactionsRoot: transactionsRoot(transactions),
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: EMPTY_BLOOM,
    difficulty: 2n,
    number: 1n,
    gasLimit: 30_000_000n,
    gasUsed: 420_000n,
    timestamp: 2n,
    extraData: new Uint8Array(97),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: 1_000_000_000n,
    withdrawalsRoot: withdrawalsRoot(withdrawals),
    ...extra,
  };
}

describe('block codec', () => {
  const block: Block = { header: header(), transactions, ommers: [], withdrawals };

  it('default: encode/decode round trip, hash from the kept header bytes, roots verify', () => {
    const bytes = encodeBlock(block);
    const decoded = decodeBlock(bytes);
    expect(bytesToHex(encodeBlock(decoded))).toBe(bytesToHex(bytes));
    expect(bytesToHex(headerHash(decoded.header))).toBe(bytesToHex(headerHash(block.header)));
    expect(decoded.transactions.map((t) => bytesToHex(t.hash))).toEqual(transactions.map((t) => bytesToHex(t.hash)));
    expect(decoded.withdrawals).toEqual(withdrawals);
    verifyBodyRoots(decoded);
    const body = decodeBlockBody(encodeBlockBody(decoded), decoded.header);
    expect(body.transactions).toHaveLength(20);
  });

  it('default: withdrawals root equals inserting RLP(i) keys one by one', () => {
    const trie = new Trie();
    withdrawals.forEach((w, i) => trie.put(rlpIndexKey(i), encodeRlp(withdrawalFields(w))));
    expect(bytesToHex(withdrawalsRoot(withdrawals))).toBe(bytesToHex(trie.root()));
    expect(withdrawalsRoot([])).toEqual(EMPTY_TRIE_ROOT);
  });

  it('error: part count, withdrawals presence, a bad transaction by index, a root mismatch', () => {
    const parts = decodeRlp(encodeBlock(block)) as RlpInput[];
    expect(() => decodeBlock(encodeRlp(parts.slice(0, 2)))).toThrow(expect.objectContaining({ code: 'BLOCK_FIELD_COUNT' }));
    expect(() => decodeBlock(encodeRlp(parts.slice(0, 3)))).toThrow(expect.objectContaining({ code: 'BLOCK_WITHDRAWALS_PRESENCE' }));
    const txs = [...(parts[1] as RlpInput[])];
    txs[3] = Uint8Array.of(2, 0xc0);
    expect(() => decodeBlock(encodeRlp([parts[0], txs, parts[2], parts[3]]))).toThrow(/block\.transactions\[3\]/);
    const wrong = { ...block, header: header({ transactionsRoot: keccak256(Uint8Array.of(1)) }) };
    expect(() => verifyBodyRoots(wrong)).toThrow(BlockError);
    expect(() => verifyBodyRoots(wrong)).toThrow(/transactionsRoot/);
    const short = [...(parts[3] as RlpInput[])];
    short[1] = [Uint8Array.of(1), Uint8Array.of(6), new Uint8Array(19), Uint8Array.of(1)];
    expect(() => decodeBlock(encodeRlp([parts[0], parts[1], parts[2], short]))).toThrow(/block\.withdrawals\[1\]\.address/);
  });
});
