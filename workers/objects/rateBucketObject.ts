import { gcraCharge, gcraDebit } from '../../gateway/ratelimit/gcra.ts';
import type { ScopeBucket } from '../../gateway/ratelimit/types.ts';
import type { DurableObjectState } from '../types.ts';
import { readCall } from './doCall.ts';

/**
 * One rate bucket shard (one object per key or keyless IP): the same GCRA arithmetic as the memory and Redis
 * limiters (gateway/ratelimit/gcra.ts). A Durable Object runs one event at a time, so a charge is atomic and a
 * key's limit is exact across every Cloudflare location. TATs are kept in memory and written to storage (output
 * gates hold the answer until the write is durable, so a restarted object never forgets a charge).
 */
export class RateBucketObject {
  private readonly tats = new Map<string, number>();
  private loaded = false;

  constructor(private readonly state: DurableObjectState) {}

  async fetch(request: Request): Promise<Response> {
    const { path, body } = await readCall<{ buckets: ScopeBucket[]; costs: number[] }>(request);
    const names = body.buckets.map((b) => `${b.scope}:${b.id}`);
    if (!this.loaded) {
      const stored = await this.state.storage.get<number>(names);
      for (const [k, v] of stored) this.tats.set(k, v);
      this.loaded = true;
    }
    if (path === '/debit') {
      // An unconditional charge (what an isolate admitted on its own while this object was slow or unreachable).
      const b = body.buckets[0] as ScopeBucket;
      const tat = gcraDebit(b.params, body.costs[0] ?? 0, Date.now(), this.tats.get(names[0] as string));
      this.tats.set(names[0] as string, tat);
      void this.state.storage.put({ [names[0] as string]: tat });
      return Response.json({ ok: true });
    }
    const tats = names.map((n) => this.tats.get(n));
    const result = gcraCharge(body.buckets, body.costs, Date.now(), tats);
    const write: Record<string, number> = {};
    names.forEach((n, i) => {
      this.tats.set(n, tats[i] as number);
      write[n] = tats[i] as number;
    });
    void this.state.storage.put(write);
    return Response.json(result);
  }
}
