/**
 * The few Workers runtime types this package uses, declared here rather than pulling @cloudflare/workers-types
 * (its globals conflict with @types/node and the DOM lib). Shapes follow the Workers runtime API.
 */

/** A Durable Object stub: a fetch to one object instance. */
export interface DurableObjectStub {
  fetch(input: string, init?: RequestInit): Promise<Response>;
}

/** An opaque Durable Object id. */
export type DurableObjectId = object;

/** A Durable Object namespace binding. */
export interface DurableObjectNamespace {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): DurableObjectStub;
}

/** A Durable Object's transactional storage (the key-value API). */
export interface DurableObjectStorage {
  get<T>(key: string): Promise<T | undefined>;
  get<T>(keys: string[]): Promise<Map<string, T>>;
  put<T>(key: string, value: T): Promise<void>;
  put<T>(entries: Record<string, T>): Promise<void>;
  delete(key: string): Promise<boolean>;
  list<T>(options?: { prefix?: string; start?: string; end?: string; limit?: number }): Promise<Map<string, T>>;
}

/** The state a Durable Object is constructed with. */
export interface DurableObjectState {
  storage: DurableObjectStorage;
  blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
}

/** The per-request execution context (Hono's declaration of it, so it passes straight to app.fetch). */
export type { ExecutionContext } from 'hono';

/** The Cache API's default cache (`caches.default`). */
export interface WorkersCache {
  match(request: Request | string): Promise<Response | undefined>;
  put(request: Request | string, response: Response): Promise<void>;
  delete(request: Request | string): Promise<boolean>;
}
