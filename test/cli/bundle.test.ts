/**
 * The bundled CLI (docs/decisions/0022-bundled-cli.md): bin/build.mjs bundles the CLI and its worker entries, and
 * bin/xone.mjs runs that bundle (dev chain answering eth_chainId and sealing blocks from the bundled chain thread)
 * while it is current, falling back to the sources when a source is newer than the build.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDist } from '../../bin/build.mjs';
import { freshBuild, ROOT } from '../../bin/freshBuild.mjs';
import { startNodeChild, type NodeChild } from '../node/support/nodeChild.ts';
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
      expect.arrayContaining(['xone', 'core.chainService.worker', 'core.runtime.recovery.worker', 'core.runtime.watchdog.worker']),
    );
    // XONE_DIST is used without the source check: other engineers may touch a source while this test runs.
    expect(freshBuild('xone.mjs', dist, false).url).toMatch(/xone\.mjs$/);

    const node = await startNodeChild({ XONE_DIST: dist }, ['--period', '1']);
    children.push(node);
    const started = await node.waitForLine('node started', 30_000);
    expect(started.runtime).toBe('bundle');
    expect((await rpc(node.url, 'eth_chainId')).result).toBe('0x539');
    // A sealed block proves the bundled chain-thread worker runs (it executes and commits every block).
    await node.waitForLine('sealed block', 30_000);
    expect(Number((await rpc(node.url, 'eth_blockNumber')).result)).toBeGreaterThanOrEqual(1);
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
