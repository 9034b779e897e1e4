import { addCounts, type UsageByDay, type UsageDelta, type UsageStore } from './types.ts';

/** Usage in this process only (one instance, tests); days older than `retentionDays` are dropped as new ones come. */
export class MemoryUsageStore implements UsageStore {
  private readonly byKey = new Map<string, UsageByDay>();

  constructor(private readonly retentionDays = 35) {}

  async add(deltas: readonly UsageDelta[]): Promise<void> {
    for (const d of deltas) {
      let days = this.byKey.get(d.keyId);
      if (!days) this.byKey.set(d.keyId, (days = new Map()));
      let methods = days.get(d.day);
      if (!methods) {
        days.set(d.day, (methods = new Map()));
        // Days are added in order: the oldest ones are first in the map.
        while (days.size > this.retentionDays) days.delete(days.keys().next().value as string);
      }
      const cell = methods.get(d.method);
      if (cell) addCounts(cell, d);
      else methods.set(d.method, { calls: d.calls, computeUnits: d.computeUnits, refused: d.refused });
    }
  }

  async read(keyId: string, days: readonly string[]): Promise<UsageByDay> {
    const out: UsageByDay = new Map();
    const stored = this.byKey.get(keyId);
    for (const day of days) {
      const methods = stored?.get(day);
      if (methods) out.set(day, new Map([...methods].map(([m, c]) => [m, { ...c }])));
    }
    return out;
  }
}
