/**
 * The Clique signer snapshot at one block (EIP-225): the authorized signers, who signed the most recent blocks (a
 * signer may sign only once every floor(N/2)+1 blocks), and the open votes. `apply` is pure: it returns a new snapshot
 * and never changes the one it was called on, so snapshots can be cached by block hash.
 */
import type { Header } from '../../chain/header/index.ts';
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts';
import { ConsensusError } from '../errors.ts';

/** nonce of a header that votes to add `coinbase` as a signer. */
export const NONCE_AUTH_VOTE = new Uint8Array(8).fill(0xff);
/** nonce of a header that votes to remove `coinbase` (and of every header that does not vote). */
export const NONCE_DROP_VOTE = new Uint8Array(8);

interface Vote {
  signer: string;
  number: bigint;
  address: string;
  authorize: boolean;
}

interface Tally {
  authorize: boolean;
  votes: number;
}

export class CliqueSnapshot {
  private constructor(
    readonly epoch: number,
    readonly number: bigint,
    readonly hash: Uint8Array,
    /** Lower-case 0x addresses, sorted (the in-turn order). */
    readonly signers: readonly string[],
    /** Block number → signer of that block, for the recent-signer rule. */
    private readonly recents: ReadonlyMap<bigint, string>,
    private readonly votes: readonly Vote[],
    private readonly tally: ReadonlyMap<string, Tally>,
  ) {}

  /** A snapshot whose signers are `signers` and whose recent-signer window holds `recents` (block → signer). */
  static create(
    epoch: number,
    number: bigint,
    hash: Uint8Array,
    signers: readonly Uint8Array[],
    recents: ReadonlyMap<bigint, Uint8Array> = new Map(),
  ): CliqueSnapshot {
    const list = [...new Set(signers.map((s) => bytesToHex(s)))].sort();
    const recentHex = new Map([...recents].map(([n, s]) => [n, bytesToHex(s)]));
    return new CliqueSnapshot(epoch, number, hash, list, recentHex, [], new Map());
  }

  /** Blocks within which a signer may not sign twice. */
  get recentLimit(): bigint {
    return BigInt(Math.floor(this.signers.length / 2) + 1);
  }

  isSigner(address: Uint8Array): boolean {
    return this.signers.includes(bytesToHex(address));
  }

  /** Whether `signer` is the in-turn signer of block `number` (difficulty 2). */
  inTurn(number: bigint, signer: Uint8Array): boolean {
    const index = this.signers.indexOf(bytesToHex(signer));
    return index >= 0 && Number(number % BigInt(this.signers.length)) === index;
  }

  /** The block number `signer` last signed inside the recent window, if any. */
  recentlySigned(signer: Uint8Array): bigint | undefined {
    const hex = bytesToHex(signer);
    for (const [n, s] of this.recents) if (s === hex) return n;
    return undefined;
  }

  /** Whether `signer` may seal block `number` on top of this snapshot. */
  canSign(signer: Uint8Array, number: bigint): boolean {
    if (!this.isSigner(signer)) return false;
    const last = this.recentlySigned(signer);
    return last === undefined || number >= last + this.recentLimit;
  }

  signerAddresses(): Uint8Array[] {
    return this.signers.map((s) => hexToBytes(s));
  }

  /**
   * Applies consecutive headers (each the child of the previous, the first the child of this snapshot's block);
   * `signerOf` recovers a header's seal signer. Throws `ConsensusError` for an unauthorized or too-recent signer.
   */
  apply(headers: readonly Header[], signerOf: (h: Header) => Uint8Array): CliqueSnapshot {
    let signers = new Set(this.signers);
    const recents = new Map(this.recents);
    let votes = [...this.votes];
    const tally = new Map(this.tally);
    let number = this.number;
    const epoch = BigInt(this.epoch);

    const validVote = (address: string, authorize: boolean): boolean => signers.has(address) !== authorize;
    const cast = (address: string, authorize: boolean): boolean => {
      if (!validVote(address, authorize)) return false;
      const old = tally.get(address);
      tally.set(address, old ? { ...old, votes: old.votes + 1 } : { authorize, votes: 1 });
      return true;
    };
    const uncast = (address: string, authorize: boolean): void => {
      const t = tally.get(address);
      if (!t || t.authorize !== authorize) return;
      if (t.votes > 1) tally.set(address, { ...t, votes: t.votes - 1 });
      else tally.delete(address);
    };

    for (const header of headers) {
      number = header.number;
      if (number % epoch === 0n) {
        votes = [];
        tally.clear();
      }
      const limit = BigInt(Math.floor(signers.size / 2) + 1);
      if (number >= limit) recents.delete(number - limit);

      const signer = bytesToHex(signerOf(header));
      if (!signers.has(signer))
        throw new ConsensusError('CONSENSUS_UNAUTHORIZED_SIGNER', 'unauthorized signer', { signer, number: number.toString() });
      for (const [n, s] of recents) {
        if (s === signer)
          throw new ConsensusError('CONSENSUS_RECENTLY_SIGNED', 'recently signed', {
            signer,
            number: number.toString(),
            last: n.toString(),
          });
      }
      recents.set(number, signer);

      const target = bytesToHex(header.coinbase);
      const previous = votes.findIndex((v) => v.signer === signer && v.address === target);
      if (previous >= 0) {
        uncast(votes[previous].address, votes[previous].authorize);
        votes.splice(previous, 1);
      }
      const authorize = isNonce(header.nonce, NONCE_AUTH_VOTE);
      if (!authorize && !isNonce(header.nonce, NONCE_DROP_VOTE)) {
        throw new ConsensusError('CONSENSUS_BAD_NONCE', 'invalid vote nonce', { number: number.toString() });
      }
      if (cast(target, authorize)) votes.push({ signer, number, address: target, authorize });

      const t = tally.get(target);
      if (t && t.votes > signers.size / 2) {
        if (t.authorize) signers.add(target);
        else {
          signers.delete(target);
          const shrunk = BigInt(Math.floor(signers.size / 2) + 1);
          if (number >= shrunk) recents.delete(number - shrunk);
          votes = votes.filter((v) => {
            if (v.signer !== target) return true;
            uncast(v.address, v.authorize);
            return false;
          });
        }
        votes = votes.filter((v) => v.address !== target);
        tally.delete(target);
      }
    }
    signers = new Set([...signers].sort());
    // The caller labels the result with its block hash (withHash): hashing headers is the codec's business.
    return new CliqueSnapshot(this.epoch, number, this.hash, [...signers], recents, votes, tally);
  }

  /** The same snapshot labelled with the hash of its block (apply() cannot hash headers itself: the codec is the caller's). */
  withHash(hash: Uint8Array): CliqueSnapshot {
    return new CliqueSnapshot(this.epoch, this.number, hash, this.signers, this.recents, this.votes, this.tally);
  }
}

function isNonce(nonce: Uint8Array, expected: Uint8Array): boolean {
  if (nonce.length !== 8) return false;
  for (let i = 0; i < 8; i++) if (nonce[i] !== expected[i]) return false;
  return true;
}
