import { Command } from 'commander';
import { KeyHasher } from '../../keys/hash.ts';
import { KeyService } from '../../keys/keyService.ts';
import type { ApiKeyPolicy } from '../../keys/types.ts';
import { ConfigError } from '../../config/validate.ts';
import type { GatewayConfig } from '../../config/types.ts';
import { loadConfig } from './loadConfig.ts';
import { createRedis, waitReady } from './redisClient.ts';
import { RedisKeyStore } from './redisKeyStore.ts';
import { startGateway } from './server.ts';

/** The form of the code running (start-up line): the dist/ bundle (bin/build.mjs) or the TypeScript sources via tsx. */
const RUNTIME: 'bundle' | 'sources' = import.meta.url.endsWith('.ts') ? 'sources' : 'bundle';

const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

async function withKeys<T>(config: GatewayConfig, fn: (keys: KeyService) => Promise<T>): Promise<T> {
  if (!config.redis.url) throw new ConfigError(['redis.url: the key commands need the Redis key store (or XONE_GATEWAY_REDIS_URL)']);
  const redis = createRedis(config.redis.url);
  try {
    await waitReady(redis);
    const keys = new KeyService(
      new RedisKeyStore(redis, config.redis.prefix),
      new KeyHasher(config.identity.keySecret),
      Object.keys(config.tiers),
    );
    return await fn(keys);
  } finally {
    redis.disconnect();
  }
}

/**
 * `xone-gateway [start]` runs the gateway; `xone-gateway keys create|list|revoke|rotate` manages API keys in Redis.
 * Returns the exit code; a bad config prints every bad key and returns 1.
 */
export async function main(argv: string[]): Promise<number> {
  const program = new Command('xone-gateway')
    .description('Edge JSON-RPC gateway for xOne')
    .option('-c, --config <file>', 'config file (JSON); env XONE_GATEWAY_CONFIG');
  const cfg = () => loadConfig(program.opts<{ config?: string }>().config);
  const print = (v: unknown): void => {
    process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
  };
  program
    .command('start', { isDefault: true })
    .description('run the gateway')
    .action(async () => {
      const config = cfg();
      const running = await startGateway(config);
      for (const w of running.warnings) process.stderr.write(`xone-gateway: warning: ${w}\n`);
      process.stderr.write(
        `xone-gateway listening on ${config.listen.host}:${running.port} (admin ${running.adminPort || 'off'}; ${RUNTIME})\n`,
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await running.close();
    });
  const keys = program.command('keys').description('manage API keys (stored hashed in Redis)');
  keys
    .command('create')
    .option('--tier <tier>', 'tier name', 'default')
    .option('--label <label>', 'free-form label', '')
    .option('--rate <perSec>', 'override: tokens per second', Number)
    .option('--burst <n>', 'override: bucket size', Number)
    .option('--allow-methods <list>', 'comma-separated methods or prefix_*', list)
    .option('--deny-methods <list>', 'comma-separated methods or prefix_*', list)
    .option('--allow-ips <list>', 'comma-separated addresses/CIDRs', list)
    .option('--allow-origins <list>', 'comma-separated origins (*.example.com allowed)', list)
    .option('--expires-in <sec>', 'expiry from now, seconds', Number)
    .action(
      async (o: {
        tier: string;
        label: string;
        rate?: number;
        burst?: number;
        allowMethods?: string[];
        denyMethods?: string[];
        allowIps?: string[];
        allowOrigins?: string[];
        expiresIn?: number;
      }) => {
        const policy: Partial<ApiKeyPolicy> = {
          tier: o.tier,
          label: o.label,
          allowMethods: o.allowMethods,
          denyMethods: o.denyMethods,
          allowIps: o.allowIps,
          allowOrigins: o.allowOrigins,
        };
        if (o.rate !== undefined || o.burst !== undefined) policy.limits = { ratePerSec: o.rate ?? 100, burst: o.burst ?? 200 };
        if (o.expiresIn !== undefined) policy.expiresAt = Date.now() + o.expiresIn * 1000;
        for (const k of Object.keys(policy) as (keyof ApiKeyPolicy)[]) if (policy[k] === undefined) delete policy[k];
        print(await withKeys(cfg(), (ks) => ks.create(policy)));
      },
    );
  keys.command('list').action(async () => print(await withKeys(cfg(), (ks) => ks.list())));
  keys.command('revoke <id>').action(async (id: string) => print(await withKeys(cfg(), (ks) => ks.revoke(id))));
  keys
    .command('rotate <id>')
    .option('--overlap <sec>', 'seconds the old key keeps working', Number, 86_400)
    .action(async (id: string, o: { overlap: number }) => print(await withKeys(cfg(), (ks) => ks.rotate(id, o.overlap * 1000))));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
