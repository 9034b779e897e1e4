import { generateKey, type KeyHasher } from './hash.ts';
import type { ApiKeyPolicy, ApiKeyRecord, KeyStore } from './types.ts';

/** A key record as shown to operators: everything but the hash. */
export type ApiKeyView = Omit<ApiKeyRecord, 'hash'>;

/** Strips the hash from a record. */
export function viewKey(r: ApiKeyRecord): ApiKeyView {
  const { hash: _hash, ...rest } = r;
  return rest;
}

/**
 * Key lifecycle used by the CLI and the admin API: create (returns the key once), list, revoke, rotate.
 * `knownTiers` rejects a tier name the gateway does not define.
 */
export class KeyService {
  constructor(
    private readonly store: KeyStore,
    private readonly hasher: KeyHasher,
    private readonly knownTiers: readonly string[],
    private readonly now: () => number = () => Date.now(),
  ) {}

  async create(policy: Partial<ApiKeyPolicy>): Promise<{ key: string; record: ApiKeyView }> {
    const tier = policy.tier ?? 'default';
    if (!this.knownTiers.includes(tier)) throw new KeyPolicyError(`unknown tier "${tier}" (known: ${this.knownTiers.join(', ')})`);
    const { key, id, prefix } = generateKey();
    const record: ApiKeyRecord = {
      ...policy,
      id,
      prefix,
      hash: await this.hasher.hash(key),
      label: policy.label ?? '',
      tier,
      disabled: false,
      createdAt: this.now(),
    };
    await this.store.put(record);
    return { key, record: viewKey(record) };
  }

  async list(): Promise<ApiKeyView[]> {
    return (await this.store.list()).map(viewKey).sort((a, b) => a.createdAt - b.createdAt);
  }

  async revoke(id: string): Promise<ApiKeyView> {
    const r = await this.mustGet(id);
    r.disabled = true;
    r.revokedAt = this.now();
    await this.store.put(r);
    return viewKey(r);
  }

  /** Issues a replacement with the same policy; the old key keeps working for `overlapMs`, then expires. */
  async rotate(id: string, overlapMs: number): Promise<{ key: string; record: ApiKeyView; old: ApiKeyView }> {
    const old = await this.mustGet(id);
    const { id: _id, prefix: _p, hash: _h, createdAt: _c, disabled: _d, revokedAt: _r, rotatedTo: _t, ...policy } = old;
    const fresh = await this.create(policy);
    old.rotatedTo = fresh.record.id;
    old.expiresAt = Math.min(old.expiresAt ?? Infinity, this.now() + overlapMs);
    await this.store.put(old);
    return { ...fresh, old: viewKey(old) };
  }

  private async mustGet(id: string): Promise<ApiKeyRecord> {
    const r = await this.store.get(id);
    if (!r) throw new KeyPolicyError(`no key with id ${id}`);
    return r;
  }
}

/** A key operation the caller got wrong (unknown id or tier). */
export class KeyPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyPolicyError';
  }
}
