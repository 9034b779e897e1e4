import type { UsageDelta } from '../../gateway/usage/types.ts';
import type { DurableObjectState } from '../types.ts';
import { readCall } from './doCall.ts';

/** Days kept: the 35 a report can cover, plus a margin for month-end billing (Redis keeps the same 40). */
const RETENTION_DAYS = 40;

/** One stored cell: calls, compute units, refusals. */
type Cell = [number, number, number];

/**
 * One key's usage (the object is named `usage:<keyId>`): one storage entry per UTC day and method, `d:<day>:<method>`,
 * only ever added to. A Durable Object runs one event at a time, so adds from every isolate and location sum exactly;
 * storage writes are durable before the answer leaves (output gates), so a flush that was answered is never lost.
 * Days older than 40 are deleted when a new day is first written.
 */
export class UsageObject {
  private prunedFor = '';

  constructor(private readonly state: DurableObjectState) {}

  async fetch(request: Request): Promise<Response> {
    const { path, body } = await readCall<{ deltas?: UsageDelta[]; days?: string[] }>(request);
    const s = this.state.storage;
    if (path === '/add' && Array.isArray(body.deltas)) {
      const names = [...new Set(body.deltas.map((d) => `d:${d.day}:${d.method}`))];
      const stored = await s.get<Cell>(names);
      const next: Record<string, Cell> = {};
      for (const d of body.deltas) {
        const name = `d:${d.day}:${d.method}`;
        const c = next[name] ?? stored.get(name) ?? [0, 0, 0];
        next[name] = [c[0] + d.calls, c[1] + d.computeUnits, c[2] + d.refused];
      }
      await s.put(next);
      const newest = body.deltas.reduce((m, d) => (d.day > m ? d.day : m), '');
      if (newest > this.prunedFor) await this.prune(newest);
      return Response.json({ ok: true });
    }
    if (path === '/read' && Array.isArray(body.days)) {
      const days = [...body.days].sort();
      const out: Record<string, Record<string, { calls: number; computeUnits: number; refused: number }>> = {};
      if (days.length > 0) {
        // ';' sorts right after ':', so the range covers every method of the last day.
        const cells = await s.list<Cell>({ start: `d:${days[0]}:`, end: `d:${days.at(-1)};` });
        const wanted = new Set(days);
        for (const [name, [calls, computeUnits, refused]] of cells) {
          const day = name.slice(2, 12);
          if (!wanted.has(day)) continue;
          (out[day] ??= {})[name.slice(13)] = { calls, computeUnits, refused };
        }
      }
      return Response.json({ days: out });
    }
    return Response.json({ error: `unknown operation ${path}` }, { status: 400 });
  }

  private async prune(newest: string): Promise<void> {
    this.prunedFor = newest;
    const cutoff = new Date(Date.parse(`${newest}T00:00:00Z`) - RETENTION_DAYS * 86_400_000).toISOString().slice(0, 10);
    const old = await this.state.storage.list({ prefix: 'd:', end: `d:${cutoff}:` });
    for (const name of old.keys()) await this.state.storage.delete(name);
  }
}
