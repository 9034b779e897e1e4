import type { ApiKeyRecord } from '../../gateway/keys/types.ts';
import type { DurableObjectState } from '../types.ts';
import { readCall } from './doCall.ts';

/**
 * The key records (hashed: the key itself is never stored, see gateway/keys/types.ts), one object for all keys.
 * Every isolate reads through it and caches a record for `identity.keyCacheTtlMs`, which bounds how long a revoked
 * key keeps working (the Workers config sets it to seconds).
 */
export class KeyStoreObject {
  constructor(private readonly state: DurableObjectState) {}

  async fetch(request: Request): Promise<Response> {
    const { path, body } = await readCall<{ id?: string; record?: ApiKeyRecord }>(request);
    const s = this.state.storage;
    if (path === '/get') return Response.json({ record: (body.id && (await s.get<ApiKeyRecord>(`k:${body.id}`))) || null });
    if (path === '/put' && body.record) {
      await s.put(`k:${body.record.id}`, body.record);
      return Response.json({ ok: true });
    }
    if (path === '/list') return Response.json({ records: [...(await s.list<ApiKeyRecord>({ prefix: 'k:' })).values()] });
    return Response.json({ error: `unknown operation ${path}` }, { status: 400 });
  }
}
