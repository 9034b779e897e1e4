/**
 * Clique-compatible proof-of-authority (EIP-225, https://eips.ethereum.org/EIPS/eip-225): header rules, seal
 * verification against a signer snapshot, and the producer's side (prepare, seal, out-of-turn delay).
 * Snapshots are cached by block hash; a miss walks back to a cached snapshot, the genesis block or a checkpoint.
 */
import { EMPTY_OMMERS_HASH, headerHash, type Header } from '../../chain/header/index.ts';
import type { CliqueConfig } from '../../chain/forks.ts';
import { bytesToHex, equalBytes } from '../../primitives/hex.ts';
import { defaultSecp256k1, recoverAddress, type Secp256k1Backend } from '../../primitives/secp256k1/index.ts';
import { bytesToScalar } from '../../primitives/secp256k1/types.ts';
import { ConsensusError } from '../errors.ts';
import { totalDifficultyForkChoice, type ForkChoice } from '../../chain/forkChoice.ts';
import type { ConsensusEngine, HeaderReader } from '../interface.ts';
import { buildCliqueExtra, EXTRA_SEAL, EXTRA_VANITY, parseCliqueExtra } from './extraData.ts';
import { cliqueSealHash } from './sealHash.ts';
import { CliqueSnapshot, NONCE_AUTH_VOTE, NONCE_DROP_VOTE } from './snapshot.ts';

export const DIFF_IN_TURN = 2n;
export const DIFF_NO_TURN = 1n;
/** Per-signer step of the random out-of-turn delay (geth's wiggleTime). */
export const WIGGLE_MS = 500;
const ZERO_ADDRESS = new Uint8Array(20);
const ZERO_HASH = new Uint8Array(32);
const SNAPSHOT_CACHE = 128;

export interface CliqueEngineOptions {
  config: CliqueConfig;
  /** Seconds a header's timestamp may run ahead of the local clock (geth allows none beyond now; we allow 15 s). */
  allowedFutureSeconds?: number;
  /** Current time in seconds (injectable for tests). */
  now?: () => number;
  secp256k1?: Secp256k1Backend;
  /** Tie-break coin of fork choice (injectable for tests). */
  random?: () => number;
}

export class CliqueEngine implements ConsensusEngine {
  readonly name = 'clique';
  /** Total difficulty decides (in-turn 2, out-of-turn 1), with geth's tie-breaks. */
  readonly forkChoice: ForkChoice;
  private readonly period: bigint;
  private readonly epoch: bigint;
  private readonly now: () => number;
  private readonly allowedFuture: number;
  private readonly secp: Secp256k1Backend;
  private readonly snapshots = new Map<string, CliqueSnapshot>();
  private readonly signerCache = new Map<string, Uint8Array>();

  constructor({
    config,
    allowedFutureSeconds = 15,
    now = () => Math.floor(Date.now() / 1000),
    secp256k1 = defaultSecp256k1(),
    random = Math.random,
  }: CliqueEngineOptions) {
    this.forkChoice = totalDifficultyForkChoice(random);
    this.period = BigInt(config.period);
    this.epoch = BigInt(config.epoch);
    this.now = now;
    this.allowedFuture = allowedFutureSeconds;
    this.secp = secp256k1;
  }

  /** The seal's signer (cached by block hash: recovery is the expensive part). */
  author(header: Header): Uint8Array {
    const key = bytesToHex(headerHash(header));
    const cached = this.signerCache.get(key);
    if (cached) return cached;
    const { seal } = parseCliqueExtra(header.extraData, header.number % this.epoch === 0n);
    const signer = recoverSealSigner(cliqueSealHash(header), seal, this.secp);
    this.rememberAuthor(header, signer);
    return signer;
  }

  private rememberAuthor(header: Header, signer: Uint8Array): void {
    if (this.signerCache.size > 4096) this.signerCache.clear();
    this.signerCache.set(bytesToHex(headerHash(header)), signer);
  }

  verifyHeader(header: Header, parent: Header, chain: HeaderReader): void {
    const number = header.number;
    const checkpoint = number % this.epoch === 0n;
    if (header.timestamp > BigInt(this.now() + this.allowedFuture)) {
      throw new ConsensusError('CONSENSUS_FUTURE_BLOCK', 'block in the future', {
        timestamp: header.timestamp.toString(),
        now: this.now(),
      });
    }
    if (checkpoint && !equalBytes(header.coinbase, ZERO_ADDRESS)) {
      throw new ConsensusError('CONSENSUS_BAD_CHECKPOINT_BENEFICIARY', 'beneficiary in checkpoint block non-zero');
    }
    const authVote = equalBytes(header.nonce, NONCE_AUTH_VOTE);
    if (!authVote && !equalBytes(header.nonce, NONCE_DROP_VOTE)) throw new ConsensusError('CONSENSUS_BAD_NONCE', 'invalid vote nonce');
    if (checkpoint && authVote) throw new ConsensusError('CONSENSUS_BAD_NONCE', 'vote nonce in checkpoint block non-zero');
    const extra = parseCliqueExtra(header.extraData, checkpoint);
    if (!equalBytes(header.mixHash, ZERO_HASH)) throw new ConsensusError('CONSENSUS_BAD_MIX_DIGEST', 'non-zero mix digest');
    if (!equalBytes(header.ommersHash, EMPTY_OMMERS_HASH)) throw new ConsensusError('CONSENSUS_BAD_UNCLE_HASH', 'non empty uncle hash');
    if (number > 0n && header.difficulty !== DIFF_IN_TURN && header.difficulty !== DIFF_NO_TURN) {
      throw new ConsensusError('CONSENSUS_BAD_DIFFICULTY', 'invalid difficulty', { difficulty: header.difficulty.toString() });
    }
    if (parent.number !== number - 1n || !equalBytes(headerHash(parent), header.parentHash)) {
      throw new ConsensusError('CONSENSUS_UNKNOWN_ANCESTOR', 'unknown ancestor', { number: number.toString() });
    }
    if (parent.timestamp + this.period > header.timestamp) {
      throw new ConsensusError('CONSENSUS_INVALID_TIMESTAMP', 'invalid timestamp', {
        parent: parent.timestamp.toString(),
        timestamp: header.timestamp.toString(),
        period: this.period.toString(),
      });
    }
    const snap = this.snapshot(parent, chain);
    if (checkpoint) {
      const listed = extra.signers.map((s) => bytesToHex(s));
      if (listed.length !== snap.signers.length || listed.some((s, i) => s !== snap.signers[i])) {
        throw new ConsensusError('CONSENSUS_BAD_CHECKPOINT_SIGNERS', 'mismatching signer list on checkpoint block', {
          listed,
          expected: snap.signers,
        });
      }
    }
    const signer = this.author(header);
    if (!snap.isSigner(signer))
      throw new ConsensusError('CONSENSUS_UNAUTHORIZED_SIGNER', 'unauthorized signer', { signer: bytesToHex(signer) });
    if (!snap.canSign(signer, number)) {
      throw new ConsensusError('CONSENSUS_RECENTLY_SIGNED', 'recently signed', { signer: bytesToHex(signer), number: number.toString() });
    }
    const expected = snap.inTurn(number, signer) ? DIFF_IN_TURN : DIFF_NO_TURN;
    if (header.difficulty !== expected) {
      throw new ConsensusError('CONSENSUS_WRONG_DIFFICULTY', `wrong difficulty: have ${header.difficulty}, want ${expected}`, {
        have: header.difficulty.toString(),
        want: expected.toString(),
      });
    }
    // Remember the child's snapshot so the next header's lookup is a cache hit.
    this.remember(snap.apply([header], (h) => this.author(h)).withHash(headerHash(header)));
  }

  /** The signer snapshot after `header` (its signers may seal `header`'s child). */
  snapshot(header: Header, chain: HeaderReader): CliqueSnapshot {
    const pending: Header[] = [];
    let cursor: Header | undefined = header;
    let base: CliqueSnapshot | undefined;
    while (!base) {
      if (!cursor) throw new ConsensusError('CONSENSUS_UNKNOWN_ANCESTOR', 'unknown ancestor while building the signer snapshot');
      const hash = headerHash(cursor);
      base = this.snapshots.get(bytesToHex(hash));
      if (base) break;
      if (cursor.number === 0n || cursor.number % this.epoch === 0n) {
        base = this.checkpointSnapshot(cursor, hash, chain);
        break;
      }
      pending.push(cursor);
      cursor = chain.headerByHash(cursor.parentHash);
    }
    if (pending.length === 0) return base;
    pending.reverse();
    const snap = base.apply(pending, (h) => this.author(h)).withHash(headerHash(header));
    this.remember(snap);
    return snap;
  }

  /** Builds the snapshot at a checkpoint from its signer list, refilling the recent-signer window from its ancestors. */
  private checkpointSnapshot(header: Header, hash: Uint8Array, chain: HeaderReader): CliqueSnapshot {
    const { signers } = parseCliqueExtra(header.extraData, true);
    const limit = BigInt(Math.floor(signers.length / 2) + 1);
    const recents = new Map<bigint, Uint8Array>();
    let cursor: Header | undefined = header;
    for (let i = 0n; i < limit - 1n && cursor && cursor.number > 0n; i++) {
      // The window before the checkpoint: blocks header.number - limit + 1 .. header.number.
      if (cursor.number > header.number - limit) recents.set(cursor.number, this.author(cursor));
      cursor = chain.headerByHash(cursor.parentHash);
    }
    const snap = CliqueSnapshot.create(Number(this.epoch), header.number, hash, signers, recents);
    this.remember(snap);
    return snap;
  }

  private remember(snap: CliqueSnapshot): void {
    if (this.snapshots.size >= SNAPSHOT_CACHE) this.snapshots.delete(this.snapshots.keys().next().value as string);
    this.snapshots.set(bytesToHex(snap.hash), snap);
  }

  // --- producer side ---------------------------------------------------------------------------------------

  /** Fills the consensus fields of a new header on `parent` for `signer` (no vote is cast). */
  prepare(
    draft: Header,
    parent: Header,
    signer: Uint8Array,
    chain: HeaderReader,
    vanity: Uint8Array = new Uint8Array(EXTRA_VANITY),
  ): Header {
    const snap = this.snapshot(parent, chain);
    const number = parent.number + 1n;
    const checkpoint = number % this.epoch === 0n;
    return {
      ...draft,
      number,
      coinbase: ZERO_ADDRESS,
      nonce: NONCE_DROP_VOTE,
      mixHash: ZERO_HASH,
      ommersHash: EMPTY_OMMERS_HASH,
      difficulty: snap.inTurn(number, signer) ? DIFF_IN_TURN : DIFF_NO_TURN,
      extraData: buildCliqueExtra(vanity, checkpoint ? snap.signerAddresses() : []),
      timestamp: draft.timestamp < parent.timestamp + this.period ? parent.timestamp + this.period : draft.timestamp,
    };
  }

  /**
   * Signs a prepared header: returns it with the seal in the last 65 bytes of extraData. With `signer` (the key's
   * address, which the producer knows) the sealed block's author is cached, so the signer snapshot on it (the next
   * seal's) does not recover our own signature.
   */
  seal(header: Header, privateKey: Uint8Array, signer?: Uint8Array): Header {
    const sig = this.secp.sign(cliqueSealHash(header), privateKey);
    const extra = header.extraData.slice();
    const at = extra.length - EXTRA_SEAL;
    extra.set(scalar32(sig.r), at);
    extra.set(scalar32(sig.s), at + 32);
    extra[at + 64] = sig.recovery;
    // Without the prepared header's RLP (if any): it no longer matches. Left out, not deleted (a deleted property puts
    // the object in V8's slow dictionary mode for every later read).
    const { rlp: _stale, ...fields } = header;
    const sealed: Header = { ...fields, extraData: extra };
    if (signer !== undefined) this.rememberAuthor(sealed, signer);
    return sealed;
  }

  /**
   * How long after the slot time an out-of-turn signer waits before sealing (in-turn: 0), a random delay up to
   * (N/2+1) × 500 ms as geth does, so the in-turn signer's block usually wins.
   */
  outOfTurnDelayMs(parent: Header, signer: Uint8Array, chain: HeaderReader, random: () => number = Math.random): number {
    const snap = this.snapshot(parent, chain);
    if (snap.inTurn(parent.number + 1n, signer)) return 0;
    return Math.floor(random() * (Math.floor(snap.signers.length / 2) + 1) * WIGGLE_MS);
  }
}

function recoverSealSigner(hash: Uint8Array, seal: Uint8Array, secp: Secp256k1Backend): Uint8Array {
  const recovery = seal[64];
  if (recovery > 1) throw new ConsensusError('CONSENSUS_BAD_SEAL', `invalid seal recovery id ${recovery}`);
  try {
    return recoverAddress(hash, bytesToScalar(seal.subarray(0, 32)), bytesToScalar(seal.subarray(32, 64)), recovery, secp);
  } catch (err) {
    throw new ConsensusError('CONSENSUS_BAD_SEAL', `invalid seal: ${(err as Error).message}`);
  }
}

function scalar32(value: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(value.toString(16).padStart(64, '0'), 'hex'));
}
