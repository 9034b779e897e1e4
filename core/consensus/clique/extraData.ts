/**
 * Clique extraData layout (EIP-225): 32 bytes of signer vanity, then — on checkpoint blocks only — the sorted list of
 * authorized signers (20 bytes each), then the 65-byte secp256k1 seal (r || s || v, v in {0,1}).
 */
import { ConsensusError } from '../errors.ts';

export const EXTRA_VANITY = 32;
export const EXTRA_SEAL = 65;
const ADDRESS = 20;

export interface CliqueExtra {
  vanity: Uint8Array;
  /** Signers listed in a checkpoint block (empty elsewhere). */
  signers: Uint8Array[];
  seal: Uint8Array;
}

/** Splits and checks extraData; `checkpoint` says whether a signer list may (and must) be present. */
export function parseCliqueExtra(extra: Uint8Array, checkpoint: boolean): CliqueExtra {
  if (extra.length < EXTRA_VANITY)
    throw new ConsensusError('CONSENSUS_MISSING_VANITY', 'extra-data 32 byte vanity prefix missing', { length: extra.length });
  if (extra.length < EXTRA_VANITY + EXTRA_SEAL) {
    throw new ConsensusError('CONSENSUS_MISSING_SEAL', 'extra-data 65 byte signature suffix missing', { length: extra.length });
  }
  const signersBytes = extra.length - EXTRA_VANITY - EXTRA_SEAL;
  if (!checkpoint && signersBytes !== 0) {
    throw new ConsensusError('CONSENSUS_EXTRA_SIGNERS', 'non-checkpoint block contains extra signer list', { bytes: signersBytes });
  }
  if (checkpoint && signersBytes % ADDRESS !== 0) {
    throw new ConsensusError('CONSENSUS_BAD_CHECKPOINT_SIGNERS', 'invalid signer list on checkpoint block', { bytes: signersBytes });
  }
  const signers: Uint8Array[] = [];
  for (let off = EXTRA_VANITY; off < EXTRA_VANITY + signersBytes; off += ADDRESS) signers.push(extra.subarray(off, off + ADDRESS));
  return { vanity: extra.subarray(0, EXTRA_VANITY), signers, seal: extra.subarray(extra.length - EXTRA_SEAL) };
}

/** Builds extraData with an empty (zero) seal, ready to be signed. */
export function buildCliqueExtra(vanity: Uint8Array, signers: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(EXTRA_VANITY + signers.length * ADDRESS + EXTRA_SEAL);
  out.set(vanity.subarray(0, EXTRA_VANITY), 0);
  signers.forEach((s, i) => out.set(s, EXTRA_VANITY + i * ADDRESS));
  return out;
}
