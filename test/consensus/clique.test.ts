/** Clique (EIP-225) with real signatures: rotation, the recent-signer rule, difficulty, voting, checkpoints. */
import { describe, expect, it } from 'vitest';
import { EMPTY_BLOOM, EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT, headerHash, type Header } from '../../core/chain/header/index.ts';
import { buildCliqueExtra, CliqueEngine, NONCE_AUTH_VOTE, NONCE_DROP_VOTE } from '../../core/consensus/clique/index.ts';
import { ConsensusError } from '../../core/consensus/errors.ts';
import type { HeaderReader } from '../../core/consensus/interface.ts';
import { bytesToHex } from '../../core/primitives/hex.ts';
import { keccak256 } from '../../core/primitives/keccak.ts';
import { addressFromPrivateKey } from '../../core/primitives/secp256k1/index.ts';

const keys = [1, 2, 3, 4].map((i) => keccak256(Uint8Array.of(i)));
const addrs = keys.map((k) => addressFromPrivateKey(k));
const keyOf = (addr: Uint8Array) => keys[addrs.findIndex((a) => bytesToHex(a) === bytesToHex(addr))];

class Chain implements HeaderReader {
  readonly byHash = new Map<string, Header>();
  head: Header;
  constructor(signers: Uint8Array[]) {
    this.head = {
      parentHash: new Uint8Array(32),
      ommersHash: EMPTY_OMMERS_HASH,
      coinbase: new Uint8Array(20),
      stateRoot: EMPTY_TRIE_ROOT,
      transactionsRoot: EMPTY_TRIE_ROOT,
      receiptsRoot: EMPTY_TRIE_ROOT,
      logsBloom: EMPTY_BLOOM,
      difficulty: 1n,
      number: 0n,
      gasLimit: 30_000_000n,
      gasUsed: 0n,
      timestamp: 1_000n,
      extraData: buildCliqueExtra(new Uint8Array(32), signers),
      mixHash: new Uint8Array(32),
      nonce: new Uint8Array(8),
      baseFeePerGas: 1_000_000_000n,
    };
    this.add(this.head);
  }
  add(h: Header): void {
    this.byHash.set(bytesToHex(headerHash(h)), h);
    this.head = h;
  }
  headerByHash(hash: Uint8Array): Header | undefined {
    return this.byHash.get(bytesToHex(hash));
  }
}

function engineFor(epoch = 900) {
  return new CliqueEngine({ config: { period: 2, epoch }, now: () => 1_000_000 });
}

/** Prepares and seals the next block by `signer` (optionally casting a vote), without verifying it. */
function nextBlock(engine: CliqueEngine, chain: Chain, signer: Uint8Array, vote?: { target: Uint8Array; authorize: boolean }): Header {
  const parent = chain.head;
  let header = engine.prepare({ ...parent, parentHash: headerHash(parent), timestamp: parent.timestamp + 2n }, parent, signer, chain);
  if (vote) header = { ...header, coinbase: vote.target, nonce: vote.authorize ? NONCE_AUTH_VOTE : NONCE_DROP_VOTE };
  return engine.seal(header, keyOf(signer));
}

function extend(engine: CliqueEngine, chain: Chain, signer: Uint8Array, vote?: { target: Uint8Array; authorize: boolean }): Header {
  const header = nextBlock(engine, chain, signer, vote);
  engine.verifyHeader(header, chain.head, chain);
  chain.add(header);
  return header;
}

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConsensusError);
    return (err as ConsensusError).code;
  }
  return undefined;
}

describe('CliqueEngine', () => {
  it('default: a single signer seals every block in turn', () => {
    const engine = engineFor();
    const chain = new Chain([addrs[0]]);
    for (let i = 0; i < 5; i++) {
      const h = extend(engine, chain, addrs[0]);
      expect(h.difficulty).toBe(2n);
      expect(bytesToHex(engine.author(h))).toBe(bytesToHex(addrs[0]));
    }
  });

  it('behavior: three signers rotate in address order with difficulty 2 in turn', () => {
    const engine = engineFor();
    const sorted = addrs.slice(0, 3).sort((a, b) => bytesToHex(a).localeCompare(bytesToHex(b)));
    const chain = new Chain(sorted);
    for (let n = 1; n <= 6; n++) {
      const h = extend(engine, chain, sorted[n % 3]);
      expect(h.difficulty).toBe(2n);
    }
  });

  it('behavior: an out-of-turn signer seals with difficulty 1 and waits a random delay', () => {
    const engine = engineFor();
    const sorted = addrs.slice(0, 3).sort((a, b) => bytesToHex(a).localeCompare(bytesToHex(b)));
    const chain = new Chain(sorted);
    const outOfTurn = sorted[2]; // block 1 is sorted[1]'s turn
    expect(engine.outOfTurnDelayMs(chain.head, outOfTurn, chain, () => 0.999)).toBeGreaterThan(0);
    expect(engine.outOfTurnDelayMs(chain.head, sorted[1], chain)).toBe(0);
    expect(extend(engine, chain, outOfTurn).difficulty).toBe(1n);
  });

  it('error: a signer may not sign twice within floor(N/2)+1 blocks', () => {
    const engine = engineFor();
    const sorted = addrs.slice(0, 3).sort((a, b) => bytesToHex(a).localeCompare(bytesToHex(b)));
    const chain = new Chain(sorted);
    extend(engine, chain, sorted[1]);
    const again = nextBlock(engine, chain, sorted[1]);
    expect(codeOf(() => engine.verifyHeader(again, chain.head, chain))).toBe('CONSENSUS_RECENTLY_SIGNED');
  });

  it('error: unauthorized signer, wrong difficulty, early timestamp, bad seal', () => {
    const engine = engineFor();
    const chain = new Chain([addrs[0], addrs[1]]);
    const stranger = nextBlock(engine, chain, addrs[3]);
    expect(codeOf(() => engine.verifyHeader(stranger, chain.head, chain))).toBe('CONSENSUS_UNAUTHORIZED_SIGNER');

    const good = nextBlock(engine, chain, addrs[0]);
    const flipped = engine.seal({ ...good, difficulty: good.difficulty === 2n ? 1n : 2n }, keys[0]);
    expect(codeOf(() => engine.verifyHeader(flipped, chain.head, chain))).toBe('CONSENSUS_WRONG_DIFFICULTY');

    const early = engine.seal({ ...good, timestamp: chain.head.timestamp + 1n }, keys[0]);
    expect(codeOf(() => engine.verifyHeader(early, chain.head, chain))).toBe('CONSENSUS_INVALID_TIMESTAMP');

    const tampered = { ...good, gasLimit: good.gasLimit + 1n }; // seal no longer matches: recovers another address
    expect(codeOf(() => engine.verifyHeader(tampered, chain.head, chain))).toBe('CONSENSUS_UNAUTHORIZED_SIGNER');

    const noSeal = { ...good, extraData: good.extraData.subarray(0, 40) };
    expect(codeOf(() => engine.verifyHeader(noSeal, chain.head, chain))).toBe('CONSENSUS_MISSING_SEAL');
  });

  it('behavior: a majority of votes adds a signer, and it can then seal', () => {
    const engine = engineFor();
    const [a, b, c] = addrs;
    const chain = new Chain([a, b]);
    const order = () => engine.snapshot(chain.head, chain).signers;
    extend(
      engine,
      chain,
      addrs.find((x) => bytesToHex(x) === order()[1])!,
      { target: c, authorize: true },
    );
    expect(engine.snapshot(chain.head, chain).isSigner(c)).toBe(false); // 1 of 2 votes is not a majority
    extend(
      engine,
      chain,
      addrs.find((x) => bytesToHex(x) === order()[0])!,
      { target: c, authorize: true },
    );
    expect(engine.snapshot(chain.head, chain).isSigner(c)).toBe(true);
    expect(engine.snapshot(chain.head, chain).signers).toHaveLength(3);
  });

  it('behavior: checkpoint blocks list the signers, and a fresh engine rebuilds the snapshot from them', () => {
    const epoch = 4;
    const engine = engineFor(epoch);
    const sorted = addrs.slice(0, 2).sort((x, y) => bytesToHex(x).localeCompare(bytesToHex(y)));
    const chain = new Chain(sorted);
    for (let n = 1; n <= 6; n++) extend(engine, chain, sorted[n % 2]);
    const fresh = engineFor(epoch);
    const next = nextBlock(fresh, chain, sorted[7 % 2]);
    expect(() => fresh.verifyHeader(next, chain.head, chain)).not.toThrow();
    // A checkpoint whose signer list is wrong is refused.
    const chain2 = new Chain(sorted);
    for (let n = 1; n <= 3; n++) extend(engine, chain2, sorted[n % 2]);
    const cp = nextBlock(engine, chain2, sorted[0]);
    const bad = engine.seal({ ...cp, extraData: buildCliqueExtra(new Uint8Array(32), [sorted[0]]) }, keyOf(sorted[0]));
    expect(codeOf(() => engine.verifyHeader(bad, chain2.head, chain2))).toBe('CONSENSUS_BAD_CHECKPOINT_SIGNERS');
  });
});
