/**
 * Deterministic synthetic blocks for store tests, the crash writer and the benchmark. Block n of chain `seed` is a
 * pure function of (seed, n, parent hash), so a checker can regenerate every block a crashed writer made and compare
 * it byte for byte. The hash is keccak-256 of the header RLP, as in Ethereum; contents are random bytes.
 */
import { keccak256 } from '../../primitives/keccak.ts';
import { encodeRlp } from '../../primitives/rlp.ts';
import type { BlockRecord, LogIndexEntry } from '../../store/types.ts';

/** Sizes of a synthetic block. */
export interface SyntheticShape {
  /** Body RLP bytes (the seed's spike used 56.6 KB blocks). */
  bodyBytes: number;
  receiptsBytes: number;
  txs: number;
  logsPerTx: number;
  /** Filler in the header, to reach a realistic header size (~540 bytes for a London header). */
  headerExtraBytes: number;
}

/** An empty block: no transactions, a London-sized header, empty body and receipts lists. */
export const EMPTY_SHAPE: SyntheticShape = { bodyBytes: 0, receiptsBytes: 0, txs: 0, logsPerTx: 0, headerExtraBytes: 500 };

/** The seeds' spike block as they measured it: 56.6 KB of opaque body, nothing to index. */
export const SEED_SPIKE_SHAPE: SyntheticShape = { bodyBytes: 56_600, receiptsBytes: 0, txs: 0, logsPerTx: 0, headerExtraBytes: 500 };

/** A 56.6 KB block with what the store indexes: 100 transactions (lookups), 100 logs, 4 KB of receipts. */
export const SPIKE_SHAPE: SyntheticShape = { bodyBytes: 56_600, receiptsBytes: 4_000, txs: 100, logsPerTx: 1, headerExtraBytes: 500 };

/** splitmix32-style generator: fast, deterministic. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

function randomBytes(next: () => number, n: number): Uint8Array {
  const words = new Uint32Array(Math.ceil(n / 4));
  for (let i = 0; i < words.length; i++) words[i] = next();
  return new Uint8Array(words.buffer, 0, n);
}

/** Block `number` of chain `seed`, child of `parentHash`. */
export function syntheticBlock(seed: number, number: number, parentHash: Uint8Array, shape: SyntheticShape = EMPTY_SHAPE): BlockRecord {
  const next = rng(Math.imul(seed, 0x27d4eb2d) ^ number);
  const headerRlp = encodeRlp([parentHash, number === 0 ? new Uint8Array(0) : beNumber(number), randomBytes(next, shape.headerExtraBytes)]);
  const bodyRlp = shape.bodyBytes === 0 ? Uint8Array.of(0xc2, 0xc0, 0xc0) : randomBytes(next, shape.bodyBytes);
  const receiptsRlp = shape.receiptsBytes === 0 ? Uint8Array.of(0xc0) : randomBytes(next, shape.receiptsBytes);
  const txHashes: Uint8Array[] = [];
  const logs: LogIndexEntry[] = [];
  for (let t = 0; t < shape.txs; t++) {
    txHashes.push(keccak256(randomBytes(next, 32)));
    for (let l = 0; l < shape.logsPerTx; l++) {
      // A small address and topic space, so filters in tests hit several blocks.
      const address = new Uint8Array(20).fill(next() % 4);
      logs.push({ address, topics: [new Uint8Array(32).fill(next() % 3), keccak256(Uint8Array.of(t))], txIndex: t, logIndex: logs.length });
    }
  }
  return { number, hash: keccak256(headerRlp), parentHash, headerRlp, bodyRlp, receiptsRlp, txHashes, logs };
}

function beNumber(n: number): Uint8Array {
  const hex = n.toString(16);
  return Uint8Array.from(Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex'));
}

/** The genesis parent hash of synthetic chains. */
export const ZERO_HASH = new Uint8Array(32);

/** Blocks `from..to` of chain `seed`, starting after `parentHash`. */
export function syntheticChain(
  seed: number,
  from: number,
  to: number,
  parentHash: Uint8Array = ZERO_HASH,
  shape: SyntheticShape = EMPTY_SHAPE,
): BlockRecord[] {
  const out: BlockRecord[] = [];
  let parent = parentHash;
  for (let n = from; n <= to; n++) {
    const b = syntheticBlock(seed, n, parent, shape);
    out.push(b);
    parent = b.hash;
  }
  return out;
}
