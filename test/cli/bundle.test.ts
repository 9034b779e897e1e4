/**
 * The bundled CLI (docs/decisions/0022-bundled-cli.md): bin/build.mjs bundles the CLI and its worker entries, and
 * bin/xone.mjs runs that bundle (dev chain answering eth_chainId and sealing blocks from the bundled chain thread)
 * while it is current, falling back to the sources when a source is newer than the build.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDist } from '../../bin/build.mjs';
import { freshBuild, ROOT } from '../../bin/freshBuild.mjs';
import { startNodeChild, type NodeChild } from '../node/support/nodeChild.ts';
import { freePort } from '../support/redis.ts';
import { rpc } from '../node/support/rpcCall.ts';

mkdirSync(join(ROOT, '.xone', 'test-bundle'), { recursive: true });
const work = mkdtempSync(join(ROOT, '.xone', 'test-bundle', 'b-'));
const children: NodeChild[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
  rmSync(work, { recursive: true, force: true });
});

describe('bundled CLI', () => {
  it('behavior: the build bundles every worker entry and bin/xone.mjs runs it: dev node answers and seals blocks', async () => {
    const dist = join(work, 'dist');
    const built = await buildDist(dist);
    expect(built.entries).toEqual(
      expect.arrayContaining([
        'xone',
        'xone-gateway',
        'core.chainService.worker',
        'core.runtime.recovery.worker',
        'core.runtime.watchdog.worker',
      ]),
    );
    // XONE_DIST is used without the source check: other engineers may touch a source while this test runs.
    expect(freshBuild('xone.mjs', dist, false).url).toMatch(/xone\.mjs$/);
    expect(freshBuild('xone-gateway.mjs', dist, false).url).toMatch(/xone-gateway\.mjs$/);
    // The gateway's sources are listed on their own: an edited gateway file never makes `xone` stale.
    const info = JSON.parse(readFileSync(join(dist, 'build-info.json'), 'utf8')) as { inputs: string[]; entries: Record<string, string[]> };
    expect(info.inputs.some((p) => p.startsWith('gateway/'))).toBe(false);
    expect(info.entries['xone-gateway.mjs']).toContain('gateway/adapters/node/cli.ts');

    const node = await startNodeChild({ XONE_DIST: dist }, ['--period', '1']);
    children.push(node);
    const started = await node.waitForLine('node started', 30_000);
    expect(started.runtime).toBe('bundle');
    expect((await rpc(node.url, 'eth_chainId')).result).toBe('0x539');
    // A sealed block proves the bundled chain-thread worker runs (it executes and commits every block).
    await node.waitForLine('sealed block', 30_000);
    expect(Number((await rpc(node.url, 'eth_blockNumber')).result)).toBeGreaterThanOrEqual(1);

    // bin/xone-gateway.mjs runs the gateway's bundle in front of that node: it says so and answers through it.
    const port = await freePort();
    const config = join(work, 'gateway.json');
    writeFileSync(config, JSON.stringify({ listen: { host: '127.0.0.1', port }, admin: { port: 0 }, upstreams: [{ url: node.url }] }));
    const gw = spawn(process.execPath, [join(ROOT, 'bin', 'xone-gateway.mjs'), '--config', config], {
      env: { ...process.env, XONE_DIST: dist },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise((r) => gw.once('exit', r));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let err = '';
        gw.stderr.on('data', (d: Buffer) => {
          err += d.toString();
          const m = /xone-gateway listening on .*\n/.exec(err);
          if (m) resolve(m[0]);
        });
        gw.once('exit', (code) => reject(new Error(`gateway exited with ${code}: ${err}`)));
      });
      expect(line).toMatch(/; bundle\)/);
      expect((await rpc(`http://127.0.0.1:${port}`, 'eth_chainId')).result).toBe('0x539');
    } finally {
      gw.kill('SIGTERM');
      await exited;
    }
  }, 120_000);

  it('error: a bundle older than one of its sources is stale, with the reason', () => {
    const dist = join(work, 'fake');
    mkdirSync(dist, { recursive: true });
    const write = (builtAt: number): void =>
      writeFileSync(join(dist, 'build-info.json'), JSON.stringify({ builtAt, inputs: ['core/cli/main.ts', 'core/version.ts'] }));
    write(Date.now() + 3_600_000);
    expect(freshBuild('xone.mjs', dist, true)).toEqual({ url: expect.stringMatching(/fake\/xone\.mjs$/) });
    write(0);
    expect(freshBuild('xone.mjs', dist, true).stale).toBe('core/cli/main.ts changed after the build');
    writeFileSync(join(dist, 'build-info.json'), JSON.stringify({ builtAt: Date.now() + 3_600_000, inputs: ['core/no/such/file.ts'] }));
    expect(freshBuild('xone.mjs', dist, true).stale).toBe('core/no/such/file.ts is gone');
    rmSync(join(dist, 'build-info.json'));
    expect(freshBuild('xone.mjs', dist, true).stale).toMatch(/^no dist\//);
    expect(readFileSync(join(ROOT, '.gitignore'), 'utf8')).toMatch(/^dist\/$/m);
  });
});
