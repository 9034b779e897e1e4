/**
 * Sender recovery: from (signing hash, r, s, recovery id) to the 20-byte address that signed. Two implementations of
 * one interface (STYLE: interfaces at seams with two implementations): in the calling thread for tests and small
 * loads, and a pool of worker threads for big batches (a block of thousands of transfers).
 */
import { XoneError } from '../../errors.ts';

/** One signature to recover: the 32-byte signing hash and the signature's r, s and y parity. */
export interface RecoveryItem {
  hash: Uint8Array;
  r: bigint;
  s: bigint;
  recovery: 0 | 1;
}

/** Recovers senders; the result has one 20-byte address per item, in order. */
export interface SenderRecovery {
  /**
   * Rejects with a `SenderRecoveryError`: `RECOVERY_BAD_INPUT` (malformed item, `meta.index`) before any work, or
   * `RECOVERY_INVALID_SIGNATURE` (no public key for that signature, `meta.index`) after the rest were tried.
   */
  recover(items: readonly RecoveryItem[]): Promise<Uint8Array[]>;
  close(): Promise<void>;
}

export type SenderRecoveryErrorCode = 'RECOVERY_BAD_INPUT' | 'RECOVERY_INVALID_SIGNATURE' | 'RECOVERY_CLOSED' | 'RECOVERY_WORKER_FAILED';

/** Every refusal of the recovery seam; `meta.index` names the item at fault where there is one. */
export class SenderRecoveryError extends XoneError<SenderRecoveryErrorCode> {}
