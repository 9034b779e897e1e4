import type { ApiKeyRecord, KeyStore } from '../../gateway/keys/types.ts';
import type { DurableObjectNamespace } from '../types.ts';
import { callObject } from './doCall.ts';

/**
 * KeyStore over KeyStoreObject. There is no pub/sub between isolates: a change notifies this isolate's listeners at
 * once, and other isolates see it when their cached record expires (identity.keyCacheTtlMs).
 */
export class DurableObjectKeyStore implements KeyStore {
  private readonly listeners: ((id: string) => void)[] = [];

  constructor(private readonly ns: DurableObjectNamespace) {}

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    return (await callObject<{ record: ApiKeyRecord | null }>(this.ns, 'keys', '/get', { id })).record ?? undefined;
  }

  async put(record: ApiKeyRecord): Promise<void> {
    await callObject(this.ns, 'keys', '/put', { record });
    for (const l of this.listeners) l(record.id);
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (await callObject<{ records: ApiKeyRecord[] }>(this.ns, 'keys', '/list', {})).records;
  }

  onInvalidate(listener: (id: string) => void): void {
    this.listeners.push(listener);
  }
}
