import { describe, expect, test } from 'vitest';
import { applyEnv } from '../../gateway/config/env.ts';
import { buildConfig, ConfigError } from '../../gateway/config/validate.ts';
import { parseCidr, parseIp, ipBucket } from '../../gateway/address/ip.ts';
import { resolveClientIp } from '../../gateway/address/clientIp.ts';

describe('config', () => {
  test('error: every bad key is listed at once', () => {
    let err: ConfigError | undefined;
    try {
      buildConfig({
        upstreams: ['ftp://x'],
        listen: { port: 'eighty', hots: 'x' },
        rateLimit: { backend: 'redis', failMode: { key: 'maybe' } },
        identity: { trustedProxies: ['10.0.0.0/99'] },
        tiers: { default: { ratePerSec: 0, burst: 1 } },
      });
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.problems).toEqual(
      expect.arrayContaining([
        'listen.port: expected a number >= 0',
        'listen.hots: unknown key',
        'upstreams[0].url: expected a http: or https: URL',
        'rateLimit.failMode.key: expected open, closed or local',
        'redis.url: required when rateLimit.backend is redis or cache.redis is true (or XONE_GATEWAY_REDIS_URL)',
        'identity.trustedProxies[0]: "10.0.0.0/99" is not an address or CIDR',
        'tiers.default.ratePerSec: expected a number > 0 and <= 1000000000',
        'tiers.anonymous: required',
        'admin.token: at least 16 characters required unless admin.port is 0 (or XONE_GATEWAY_ADMIN_TOKEN)',
      ]),
    );
  });

  test('default: env overrides the file; defaults fill the rest', () => {
    const cfg = buildConfig(
      applyEnv(
        { admin: { port: 0 } },
        { XONE_GATEWAY_UPSTREAMS: 'http://127.0.0.1:8545, http://127.0.0.1:8546', XONE_GATEWAY_PORT: '9000' },
      ),
    );
    expect(cfg.upstreams.map((u) => u.url)).toEqual(['http://127.0.0.1:8545', 'http://127.0.0.1:8546']);
    expect(cfg.upstreams[0]?.wsUrl).toBe('ws://127.0.0.1:8545');
    expect(cfg.listen.port).toBe(9000);
    expect(cfg.limits).toMatchObject({ maxBodyBytes: 1_048_576, maxBatchSize: 100 });
    expect(cfg.tiers.anonymous?.denyMethods).toContain('debug_*');
  });
});

describe('client address', () => {
  const trusted = ['127.0.0.1', '10.0.0.0/8'].map((c) => parseCidr(c)!);
  test('behavior: XFF is walked right to left past trusted proxies only', () => {
    expect(ipBucket(resolveClientIp('127.0.0.1', '6.6.6.6, 203.0.113.9, 10.1.2.3', trusted)!)).toBe('203.0.113.9');
    // An untrusted peer's XFF is ignored entirely.
    expect(ipBucket(resolveClientIp('198.51.100.1', '6.6.6.6', trusted)!)).toBe('198.51.100.1');
    expect(ipBucket(parseIp('::ffff:192.0.2.1')!)).toBe('192.0.2.1');
    expect(ipBucket(parseIp('2001:db8:a:b:1:2:3:4')!)).toBe(ipBucket(parseIp('2001:db8:a:b:ffff::1')!));
    expect(ipBucket(parseIp('2001:db8:a:b::1')!)).not.toBe(ipBucket(parseIp('2001:db8:a:c::1')!));
  });
});
