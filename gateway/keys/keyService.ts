import { generateKey, type KeyHasher } from './hash.ts';
import type { ApiKeyRecord, KeyStore } from './types.ts';
import { KeyPolicyError, validatePolicy } from './validatePolicy.ts';

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

  /** Creates a key; `raw` is validated field by field (KeyPolicyError names the first bad one). */
  async create(raw: unknown): Promise<{ key: string; record: ApiKeyView }> {
    const policy = validatePolicy(raw, this.knownTiers, this.now());
    const tier = policy.tier ?? 'default';
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
    // An expiry already past would make the replacement invalid at birth: the new key does not inherit it.
    if (policy.expiresAt !== undefined && policy.expiresAt <= this.now()) delete policy.expiresAt;
    const fresh = await this.create(policy);
    old.rotatedTo = fresh.record.id;
    old.expiresAt = Math.min(old.expiresAt ?? Infinity, this.now() + overlapMs);
    await this.store.put(old);
    return { ...fresh, old: viewKey(old) };
  }

  private async mustGet(id: string): Promise<ApiKeyRecord> {
    const r = await this.store.get(id);
    if (!r) throw new KeyPolicyError(`no key with id ${id.slice(0, 64)}`, 'id');
    return r;
  }
}
