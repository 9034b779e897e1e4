import type { HeadState } from '../../gateway/cache/head.ts';
import type { DurableObjectState } from '../types.ts';
import { readCall } from './doCall.ts';

/**
 * The head shared by every isolate: merges candidates by taking the maximum of each tag, so the head any isolate
 * serves never goes backwards (the same contract as MemorySharedHead and RedisSharedHead).
 */
export class HeadObject {
  private state: HeadState | undefined;

  constructor(private readonly ctx: DurableObjectState) {}

  async fetch(request: Request): Promise<Response> {
    const { body: c } = await readCall<HeadState>(request);
    const s = this.state ?? (await this.ctx.storage.get<HeadState>('head')) ?? { latest: 0, safe: 0, finalized: 0 };
    const next = { latest: Math.max(s.latest, c.latest), safe: Math.max(s.safe, c.safe), finalized: Math.max(s.finalized, c.finalized) };
    this.state = next;
    if (next.latest !== s.latest || next.safe !== s.safe || next.finalized !== s.finalized) void this.ctx.storage.put('head', next);
    return Response.json(next);
  }
}
