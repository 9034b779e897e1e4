import type { ApiKeyRecord, KeyStore } from './types.ts';

/** Keys held in process (one instance, tests). Changes notify this process's listeners synchronously. */
export class MemoryKeyStore implements KeyStore {
  private readonly records = new Map<string, ApiKeyRecord>();
  private readonly listeners: ((id: string) => void)[] = [];

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const r = this.records.get(id);
    return r ? structuredClone(r) : undefined;
  }

  async put(record: ApiKeyRecord): Promise<void> {
    this.records.set(record.id, structuredClone(record));
    for (const l of this.listeners) l(record.id);
  }

  async list(): Promise<ApiKeyRecord[]> {
    return [...this.records.values()].map((r) => structuredClone(r));
  }

  onInvalidate(listener: (id: string) => void): void {
    this.listeners.push(listener);
  }
}
