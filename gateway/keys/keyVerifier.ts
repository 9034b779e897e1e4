import type { GatewayMetrics } from '../metrics/types.ts';
import { GatewayError } from '../rpc/gatewayError.ts';
import { constantTimeEqual, KEY_PATTERN, type KeyHasher } from './hash.ts';
import type { ApiKeyRecord, KeyStore } from './types.ts';

/** Options of the verifier's in-process cache. */
export interface KeyVerifierOptions {
  positiveTtlMs: number;
  negativeTtlMs: number;
  now?: () => number;
}

/**
 * Checks a presented key: shape, record by the embedded id (through an in-process cache with positive and negative
 * TTLs, invalidated by the store's change feed), HMAC compared in constant time, then disabled and expiry.
 * Errors never contain the presented key.
 */
export class KeyVerifier {
  private readonly cache = new Map<string, { record: ApiKeyRecord | undefined; until: number }>();
  private readonly now: () => number;
  private readonly changed: ((id: string) => void)[] = [];

  constructor(
    private readonly store: KeyStore,
    private readonly hasher: KeyHasher,
    private readonly metrics: GatewayMetrics,
    private readonly opts: KeyVerifierOptions,
  ) {
    this.now = opts.now ?? (() => Date.now());
    store.onInvalidate((id) => {
      this.cache.delete(id);
      for (const l of this.changed) l(id);
    });
  }

  /** Calls `listener` with a key id whenever its record changed (after this verifier dropped its cached copy). */
  onChange(listener: (id: string) => void): void {
    this.changed.push(listener);
  }

  /** Drops a cached record (called on a pub/sub invalidation). */
  invalidate(id: string): void {
    this.cache.delete(id);
  }

  async verify(presented: string): Promise<ApiKeyRecord> {
    const m = KEY_PATTERN.exec(presented);
    if (!m) {
      this.metrics.keyLookup('invalid');
      throw new GatewayError('unauthorized', 'unauthorized: malformed API key');
    }
    const record = await this.lookup(m[1] as string);
    const hash = await this.hasher.hash(presented);
    if (!record || !constantTimeEqual(hash, record.hash)) throw new GatewayError('unauthorized', 'unauthorized: unknown API key');
    if (record.disabled)
      throw new GatewayError('unauthorized', record.revokedAt ? 'unauthorized: API key revoked' : 'unauthorized: API key disabled');
    if (record.expiresAt !== undefined && record.expiresAt <= this.now())
      throw new GatewayError('unauthorized', 'unauthorized: API key expired');
    return record;
  }

  private async lookup(id: string): Promise<ApiKeyRecord | undefined> {
    const hit = this.cache.get(id);
    if (hit && hit.until > this.now()) {
      this.metrics.keyLookup('hit');
      return hit.record;
    }
    this.metrics.keyLookup('miss');
    let record: ApiKeyRecord | undefined;
    try {
      record = await this.store.get(id);
    } catch {
      // Store unreachable: an expired cache entry is better than refusing every known key (revocations still
      // arrive by pub/sub once it is back); with nothing cached the caller is told to retry.
      if (hit) return hit.record;
      throw new GatewayError('unavailable', 'resource unavailable: key store unreachable', undefined, { 'Retry-After': '1' });
    }
    const ttl = record ? this.opts.positiveTtlMs : this.opts.negativeTtlMs;
    this.cache.set(id, { record, until: this.now() + ttl });
    return record;
  }
}
