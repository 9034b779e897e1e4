import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWriter } from './bundleWriter.ts';
import { killsPerMode, runCrashLoop } from './crashHarness.ts';

const REPO = join(import.meta.dirname, '..', '..');

describe('crash: producer (every block durable on its own)', () => {
  let bundle = '';
  const datadir = join(REPO, '.xone', 'crash', `producer-${process.pid}`);
  beforeAll(async () => {
    rmSync(datadir, { recursive: true, force: true });
    bundle = await bundleWriter('producer');
  });
  afterAll(() => {
    rmSync(datadir, { recursive: true, force: true });
    rmSync(bundle, { force: true });
  });

  it(`behavior: ${killsPerMode()} SIGKILLs at random moments lose no reported block and expose nothing past the head`, async () => {
    const r = await runCrashLoop({ bundle, datadir, kills: killsPerMode(), seed: 21, step: 1, checkEvery: 10 });
    console.log(`crash producer: ${JSON.stringify(r)}`);
    expect(r.kills).toBe(killsPerMode());
    expect(r.finalHead).toBeGreaterThan(killsPerMode() / 2);
  }, 600_000);
});
