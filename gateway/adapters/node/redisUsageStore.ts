import type { Redis } from 'ioredis';
import type { UsageByDay, UsageCounts, UsageDelta, UsageStore } from '../../usage/types.ts';

/** How long a day of usage is kept: the 30 days a key holder can read, plus a margin for month-end billing. */
const RETENTION_SEC = 40 * 86_400;

const FIELDS = { c: 'calls', u: 'computeUnits', r: 'refused' } as const;

/**
 * Usage in Redis: one hash per key and UTC day, `<prefix>usage:<keyId>:<day>`, fields `c:<method>` (calls),
 * `u:<method>` (compute units), `r:<method>` (refusals), each only ever incremented (HINCRBY), so every instance adds
 * to the same cells. Kept 40 days; durable as the keys are (the documented Redis config has the AOF on).
 */
export class RedisUsageStore implements UsageStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private hashOf(keyId: string, day: string): string {
    return `${this.prefix}usage:${keyId}:${day}`;
  }

  async add(deltas: readonly UsageDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    const tx = this.redis.multi();
    const touched = new Set<string>();
    for (const d of deltas) {
      const h = this.hashOf(d.keyId, d.day);
      touched.add(h);
      if (d.calls) tx.hincrby(h, `c:${d.method}`, d.calls);
      if (d.computeUnits) tx.hincrby(h, `u:${d.method}`, d.computeUnits);
      if (d.refused) tx.hincrby(h, `r:${d.method}`, d.refused);
    }
    for (const h of touched) tx.expire(h, RETENTION_SEC);
    const out = await tx.exec();
    const failed = out?.find(([err]) => err);
    if (!out || failed) throw failed?.[0] ?? new Error('usage write aborted');
  }

  async read(keyId: string, days: readonly string[]): Promise<UsageByDay> {
    const p = this.redis.pipeline();
    for (const day of days) p.hgetall(this.hashOf(keyId, day));
    const replies = (await p.exec()) ?? [];
    const out: UsageByDay = new Map();
    replies.forEach(([err, raw], i) => {
      if (err) throw err;
      const fields = Object.entries((raw ?? {}) as Record<string, string>);
      if (fields.length === 0) return;
      const methods = new Map<string, UsageCounts>();
      for (const [field, value] of fields) {
        const kind = field.slice(0, 1) as keyof typeof FIELDS;
        const method = field.slice(2);
        if (!(kind in FIELDS) || field[1] !== ':') continue;
        let cell = methods.get(method);
        if (!cell) methods.set(method, (cell = { calls: 0, computeUnits: 0, refused: 0 }));
        cell[FIELDS[kind]] += Number(value);
      }
      out.set(days[i] as string, methods);
    });
    return out;
  }
}
