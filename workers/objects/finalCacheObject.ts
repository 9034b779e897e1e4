import type { DurableObjectState } from '../types.ts';
import { readCall } from './doCall.ts';

/** Entries of one FinalCacheObject shard above this many are dropped oldest-first (storage is billed per GB-month). */
const MAX_ENTRIES = 50_000;

/**
 * Durable store for finalized, immutable results (one of 16 shards by key hash): unlike the per-location Cache API,
 * every location reads the same copy, and it survives eviction. Entries carry their expiry.
 */
export class FinalCacheObject {
  private count: number | undefined;

  constructor(private readonly state: DurableObjectState) {}

  async fetch(request: Request): Promise<Response> {
    const { path, body } = await readCall<{ key: string; value?: string; expiresAt?: number }>(request);
    const s = this.state.storage;
    if (path === '/get') {
      const e = await s.get<{ v: string; x: number }>(`c:${body.key}`);
      return Response.json({ value: e && e.x > Date.now() ? e.v : null });
    }
    if (path === '/set' && body.value !== undefined) {
      this.count ??= (await s.list({ prefix: 'c:' })).size;
      if (this.count >= MAX_ENTRIES) {
        for (const k of (await s.list({ prefix: 'c:', limit: Math.ceil(MAX_ENTRIES / 10) })).keys()) await s.delete(k);
        this.count = (await s.list({ prefix: 'c:' })).size;
      }
      await s.put(`c:${body.key}`, { v: body.value, x: body.expiresAt ?? Date.now() });
      this.count++;
      return Response.json({ ok: true });
    }
    return Response.json({ error: `unknown operation ${path}` }, { status: 400 });
  }
}
