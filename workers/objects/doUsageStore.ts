import { UsageWriteError, type UsageByDay, type UsageCounts, type UsageDelta, type UsageStore } from '../../gateway/usage/types.ts';
import type { DurableObjectNamespace } from '../types.ts';
import { callObject } from './doCall.ts';

/**
 * UsageStore over UsageObject, one object per key (`usage:<keyId>`): a flush is one call per key with pending counts,
 * a report one call. Every isolate adds to the same object, so usage is shared and durable (it used to live in each
 * isolate's memory: a report showed one isolate's share and was lost with it).
 */
export class DurableObjectUsageStore implements UsageStore {
  constructor(private readonly ns: DurableObjectNamespace) {}

  async add(deltas: readonly UsageDelta[]): Promise<void> {
    const byKey = new Map<string, UsageDelta[]>();
    for (const d of deltas) {
      const list = byKey.get(d.keyId);
      if (list) list.push(d);
      else byKey.set(d.keyId, [d]);
    }
    const lists = [...byKey.values()];
    const results = await Promise.allSettled(lists.map((list) => callObject(this.ns, `usage:${list[0]?.keyId}`, '/add', { deltas: list })));
    const failed = results.flatMap((r, i) => (r.status === 'rejected' ? (lists[i] as UsageDelta[]) : []));
    const first = results.find((r) => r.status === 'rejected');
    if (first) throw new UsageWriteError(failed, first.reason);
  }

  async read(keyId: string, days: readonly string[]): Promise<UsageByDay> {
    const r = await callObject<{ days: Record<string, Record<string, UsageCounts>> }>(this.ns, `usage:${keyId}`, '/read', { days });
    const out: UsageByDay = new Map();
    for (const [day, methods] of Object.entries(r.days)) out.set(day, new Map(Object.entries(methods)));
    return out;
  }
}
