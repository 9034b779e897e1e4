import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { flagsIn, xoneRunFlags } from './support/runFlags.ts';
import { runTool } from './support/runTool.ts';

const FILE = resolve('infra/compose/docker-compose.yml');
const tmp = mkdtempSync(join(tmpdir(), 'xone-compose-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('compose file', () => {
  it('default: `docker-compose config -q` accepts it and prints nothing', () => {
    const r = runTool('docker-compose', ['-f', FILE, 'config', '-q']);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it('behavior: has the producer, two followers, gateway, Redis, Prometheus and Grafana, wired together', () => {
    const resolved = runTool('docker-compose', ['-f', FILE, 'config']).stdout;
    const section = /^services:\n((?:[ ].*\n)+)/m.exec(resolved)?.[1] ?? '';
    const services = [...section.matchAll(/^ {2}([a-z0-9-]+):$/gm)].map((m) => m[1]);
    expect(services.sort()).toEqual(['follower-1', 'follower-2', 'gateway', 'grafana', 'producer', 'prometheus', 'redis']);
    expect(resolved).toContain('--mine');
    expect(resolved.match(/--batch 128/g)).toHaveLength(2);
    expect(resolved).toContain('XONE_GATEWAY_UPSTREAMS: http://follower-1:8545,http://follower-2:8545');
    expect(resolved).toContain('XONE_GATEWAY_REDIS_URL: redis://redis:6379/0');
  });

  it('behavior: core services pass only flags that `xone run` has', () => {
    const known = xoneRunFlags();
    const commands = [...readFileSync(FILE, 'utf8').matchAll(/command: >-\n((?: {6}.*\n)+)/g)].map((m) => m[1]);
    expect(commands).toHaveLength(3);
    for (const c of commands) {
      expect(c.trimStart().startsWith('run ')).toBe(true);
      expect(flagsIn(c).filter((f) => !known.has(f))).toEqual([]);
    }
  });

  it('behavior: the check itself rejects a broken file', () => {
    const broken = join(tmp, 'docker-compose.yml');
    writeFileSync(
      broken,
      readFileSync(FILE, 'utf8').replace('restart: on-failure\n    networks: [edge]', 'restart: on-failure\n    netwrks: [edge]'),
    );
    const r = runTool('docker-compose', ['-f', broken, 'config', '-q']);
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/netwrks/);
  });
});
