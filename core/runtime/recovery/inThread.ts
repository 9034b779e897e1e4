/**
 * Sender recovery in the calling thread: for tests, for small batches (the pool sends batches under 64 here), and as
 * the fallback when a pool worker dies. Same checks and errors as the pool.
 */
import type { Histogram } from '../../metrics/types.ts';
import { defaultSecp256k1, recoverAddress, type Secp256k1Backend } from '../../primitives/secp256k1/index.ts';
import { checkItems } from './packed.ts';
import { SenderRecoveryError, type RecoveryItem, type SenderRecovery } from './types.ts';

/** Recovers synchronously, returning a resolved promise (the interface is async for the pool's sake). */
export class InThreadSenderRecovery implements SenderRecovery {
  private closed = false;

  constructor(
    private readonly backend: Secp256k1Backend = defaultSecp256k1(),
    private readonly metrics?: { recoverySeconds: Histogram },
  ) {}

  async recover(items: readonly RecoveryItem[]): Promise<Uint8Array[]> {
    if (this.closed) throw new SenderRecoveryError('RECOVERY_CLOSED', 'sender recovery is closed');
    return this.recoverSync(items);
  }

  /** The synchronous core, shared with the pool's small-batch path. */
  recoverSync(items: readonly RecoveryItem[]): Uint8Array[] {
    checkItems(items);
    const stop = this.metrics?.recoverySeconds.startTimer();
    const out = new Array<Uint8Array>(items.length);
    let failed = -1;
    let failure = '';
    for (let i = 0; i < items.length; i++) {
      const { hash, r, s, recovery } = items[i];
      try {
        out[i] = recoverAddress(hash, r, s, recovery, this.backend);
      } catch (err) {
        out[i] = new Uint8Array(20);
        if (failed < 0) [failed, failure] = [i, (err as Error).message];
      }
    }
    stop?.();
    if (failed >= 0) throw invalidSignature(failed, failure);
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** The error for a signature that recovers to no public key. */
export function invalidSignature(index: number, cause: string): SenderRecoveryError {
  return new SenderRecoveryError('RECOVERY_INVALID_SIGNATURE', `sender recovery item ${index}: invalid signature (${cause})`, {
    index,
    cause,
  });
}
