import type { Redis } from 'ioredis';
import type { HeadState, SharedHead } from '../../cache/head.ts';

const ADVANCE_LUA = `
local out = {}
for i = 1, 3 do
  local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[2 * i - 1]) or '0')
  local cand = tonumber(ARGV[2 * i])
  if cand > cur then redis.call('HSET', KEYS[1], ARGV[2 * i - 1], cand); cur = cand end
  out[i] = cur
end
return out
`;

type HeadRedis = Redis & { xoneHeadAdvance(key: number, k: string, ...args: (string | number)[]): Promise<number[]> };

/** The monotonic head shared through one Redis hash; each tag only moves forward (max), atomically. */
export class RedisSharedHead implements SharedHead {
  private readonly redis: HeadRedis;
  private last: HeadState = { latest: 0, safe: 0, finalized: 0 };

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    if (!('xoneHeadAdvance' in redis)) redis.defineCommand('xoneHeadAdvance', { lua: ADVANCE_LUA });
    this.redis = redis as HeadRedis;
  }

  async advance(c: HeadState): Promise<HeadState> {
    try {
      const [latest, safe, finalized] = await this.redis.xoneHeadAdvance(
        1,
        `${this.prefix}head`,
        'latest',
        c.latest,
        'safe',
        c.safe,
        'finalized',
        c.finalized,
      );
      this.last = { latest: Number(latest), safe: Number(safe), finalized: Number(finalized) };
    } catch {
      // Redis away: stay monotonic locally.
      this.last = {
        latest: Math.max(this.last.latest, c.latest),
        safe: Math.max(this.last.safe, c.safe),
        finalized: Math.max(this.last.finalized, c.finalized),
      };
    }
    return { ...this.last };
  }
}
