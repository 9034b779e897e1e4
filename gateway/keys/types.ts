import type { BucketParams } from '../config/types.ts';

/**
 * A stored API key. The key itself is never stored: only HMAC-SHA256(server secret, key) in `hash`, plus the id
 * embedded in the key (`xk_<id>_<secret>`) for lookup and a short display `prefix`.
 */
export interface ApiKeyRecord {
  id: string;
  prefix: string;
  hash: string;
  label: string;
  tier: string;
  /** Overrides the tier's bucket parameters. */
  limits?: BucketParams;
  allowMethods?: string[];
  denyMethods?: string[];
  /** Client addresses or CIDRs the key may be used from. */
  allowIps?: string[];
  /** Origins (exact, or `*.example.com`) the key may be used from. */
  allowOrigins?: string[];
  /** Epoch ms after which the key is refused. */
  expiresAt?: number;
  disabled: boolean;
  createdAt: number;
  /** Set by revoke. */
  revokedAt?: number;
  /** Set on the old key by rotate: the id of its replacement. */
  rotatedTo?: string;
}

/** The editable part of a key, as `keys create` and the admin API take it. */
export type ApiKeyPolicy = Pick<
  ApiKeyRecord,
  'label' | 'tier' | 'limits' | 'allowMethods' | 'denyMethods' | 'allowIps' | 'allowOrigins' | 'expiresAt'
>;

/**
 * The key store could not be reached (Redis down or too slow). Not the caller's fault and not a bug: the admin API
 * answers it as 503 with its cause, where any other failure is a 500 "internal error".
 */
export class KeyStoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`key store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'KeyStoreUnavailableError';
  }
}

/**
 * Where key records live (memory for one instance and tests, Redis shared by all instances, a Durable Object later).
 * `onInvalidate` lets the store tell every instance's cache that a record changed (Redis pub/sub).
 */
export interface KeyStore {
  get(id: string): Promise<ApiKeyRecord | undefined>;
  put(record: ApiKeyRecord): Promise<void>;
  list(): Promise<ApiKeyRecord[]>;
  onInvalidate(listener: (id: string) => void): void;
  close?(): Promise<void>;
}
