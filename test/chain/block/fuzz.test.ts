/**
 * Bounded fuzzing of the block, receipt and trie-proof decoders: mutated valid inputs (byte flips, truncations,
 * insertions, spliced ranges) must decode to a value that re-encodes to the same bytes, or fail with a typed
 * XoneError — never another exception, never a hang. Bounded by a case count (never by the clock), so a loaded host
 * runs the same cases, slower.
 */
import { describe, expect, it } from 'vitest';
import { XoneError } from '../../../core/errors.ts';
import { decodeBlock, encodeBlock, transactionsRoot, type Block } from '../../../core/chain/block/index.ts';
import { EMPTY_BLOOM, EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT } from '../../../core/chain/header/index.ts';
import { decodeReceipt, encodeReceipt, type Receipt } from '../../../core/chain/receipt/index.ts';
import { logsBloom } from '../../../core/chain/bloom.ts';
import { makeSignedTransfers } from '../../../core/chain/transaction/testing.ts';
import { withdrawalsRoot } from '../../../core/chain/withdrawal.ts';
import { bytesToHex, hexToBytes } from '../../../core/primitives/hex.ts';
import { Trie, verifyProof } from '../../../core/trie/index.ts';
import { conformancePath, readJson } from '../../support/conformance.ts';

/** Cases per decoder: fixed, so every host runs the same inputs. */
const BLOCK_CASES = 20_000;
const RECEIPT_CASES = 10_000;
const PROOF_CASES = 5_000;

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

function mutate(input: Uint8Array, rand: () => number): Uint8Array {
  const pick = (n: number): number => Math.floor(rand() * n);
  const out = input.slice();
  switch (pick(5)) {
    case 0:
      for (let k = 1 + pick(3); k > 0; k--) out[pick(out.length)] ^= 1 << pick(8);
      return out;
    case 1:
      return out.subarray(0, pick(out.length));
    case 2: {
      const at = pick(out.length + 1);
      return Uint8Array.of(...out.subarray(0, at), pick(256), ...out.subarray(at));
    }
    case 3: {
      // Overwrite a length-looking byte near the start (most headers live there).
      out[pick(Math.min(out.length, 8))] = pick(256);
      return out;
    }
    default: {
      const a = pick(out.length);
      const b = a + pick(out.length - a);
      return Uint8Array.of(...out.subarray(0, a), ...out.subarray(b));
    }
  }
}

/** Runs `decode` on `count` mutations of `seeds`; returns [decoded, refused] counts. */
function fuzz(seeds: Uint8Array[], count: number, decode: (b: Uint8Array) => void): [number, number] {
  const rand = rng(0x2040);
  let ok = 0;
  let refused = 0;
  for (let i = 0; i < count; i++) {
    const input = mutate(seeds[i % seeds.length], rand);
    try {
      decode(input);
      ok++;
    } catch (err) {
      if (!(err instanceof XoneError))
        throw new Error(`untyped ${(err as Error).name} on input ${bytesToHex(input).slice(0, 200)}: ${(err as Error).message}`);
      refused++;
    }
  }
  return [ok, refused];
}

describe('decoder fuzzing', () => {
  it('behavior: blocks decode and re-encode identically, or are refused with a typed error', () => {
    const txs = makeSignedTransfers(8, 2040n, { senders: 2 });
    const withdrawals = [{ index: 1n, validatorIndex: 2n, address: new Uint8Array(20).fill(3), amount: 4n }];
    const ours: Block = {
      header: {
        parentHash: new Uint8Array(32),
        ommersHash: EMPTY_OMMERS_HASH,
        coinbase: new Uint8Array(20),
        stateRoot: EMPTY_TRIE_ROOT,
        transactionsRoot: transactionsRoot(txs),
        receiptsRoot: EMPTY_TRIE_ROOT,
        logsBloom: EMPTY_BLOOM,
        difficulty: 2n,
        number: 9n,
        gasLimit: 30_000_000n,
        gasUsed: 0n,
        timestamp: 5n,
        extraData: new Uint8Array(32),
        mixHash: new Uint8Array(32),
        nonce: new Uint8Array(8),
        baseFeePerGas: 7n,
        withdrawalsRoot: withdrawalsRoot(withdrawals),
      },
      transactions: txs,
      ommers: [],
      withdrawals,
    };
    const fixture = readJson<Record<string, { blocks: { rlp: string }[] }>>(
      conformancePath('ethereum-tests', 'BlockchainTests', 'ValidBlocks', 'bcValidBlockTest', 'SimpleTx.json'),
    );
    const seeds = [encodeBlock(ours), ...Object.values(fixture).map((c) => hexToBytes(c.blocks[0].rlp))];
    const [ok, refused] = fuzz(seeds, BLOCK_CASES, (bytes) => {
      const block = decodeBlock(bytes);
      expect(bytesToHex(encodeBlock(block))).toBe(bytesToHex(bytes));
    });
    expect(ok + refused).toBe(BLOCK_CASES);
    // Both outcomes occur: some mutations (e.g. inside a signature's r) still decode, most are refused.
    expect(ok).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it('behavior: receipts and proofs', () => {
    const log = { address: new Uint8Array(20).fill(1), topics: [new Uint8Array(32).fill(2)], data: Uint8Array.of(3) };
    const receipts: Receipt[] = [
      { type: 2, status: 1, cumulativeGasUsed: 99n, logsBloom: logsBloom([log]), logs: [log] },
      { type: 0, status: 0, cumulativeGasUsed: 1n, logsBloom: EMPTY_BLOOM, logs: [] },
    ];
    const [ok, refused] = fuzz(receipts.map(encodeReceipt), RECEIPT_CASES, (bytes) => {
      expect(bytesToHex(encodeReceipt(decodeReceipt(bytes)))).toBe(bytesToHex(bytes));
    });
    expect(ok + refused).toBe(RECEIPT_CASES);
    expect(ok).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);

    const trie = new Trie();
    for (let i = 0; i < 200; i++) trie.put(Uint8Array.of(i, i * 7), new Uint8Array(33).fill(i));
    const root = trie.root();
    const key = Uint8Array.of(5, 35);
    const proof = trie.createProof(key);
    const rand = rng(9);
    let verified = 0;
    let broken = 0;
    for (let i = 0; i < PROOF_CASES; i++) {
      const bad = proof.map((p) => (rand() < 0.5 ? mutate(p, rand) : p));
      try {
        const value = verifyProof(root, key, bad);
        // A proof that still verifies must give the true value (only unchanged nodes can hash to the root path).
        expect(value === undefined ? undefined : bytesToHex(value)).toBe(bytesToHex(new Uint8Array(33).fill(5)));
        verified++;
      } catch (err) {
        expect(err).toBeInstanceOf(XoneError);
        broken++;
      }
    }
    expect(verified + broken).toBe(PROOF_CASES);
    expect(broken).toBeGreaterThan(0);
  });
});
