import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWriter } from './bundleWriter.ts';
import { runCrashLoop } from './crashHarness.ts';

const REPO = join(import.meta.dirname, '..', '..');
/** Fewer rounds than the power-loss modes: the dev chain's promise is narrower (a killed process), the loop the same. */
const KILLS = Math.max(10, Math.round(Number(process.env.XONE_CRASH_KILLS ?? 200) / 5));

describe("crash: the dev chain's 'process-exit' commits (synchronous=OFF, decisions 0036 and 0048)", () => {
  let bundle = '';
  const datadir = join(REPO, '.xone', 'crash', `dev-${process.pid}`);
  beforeAll(async () => {
    rmSync(datadir, { recursive: true, force: true });
    bundle = await bundleWriter('dev');
  });
  afterAll(() => {
    rmSync(datadir, { recursive: true, force: true });
    rmSync(bundle, { force: true });
  });

  it(`behavior: ${KILLS} SIGKILLs at random moments (checkpoints included) lose no reported block and reopen consistent`, async () => {
    const r = await runCrashLoop({ bundle, datadir, kills: KILLS, seed: 48, step: 1, checkEvery: 5, commitSurvives: 'process-exit' });
    console.log(`crash dev chain: ${JSON.stringify(r)}`);
    expect(r.kills).toBe(KILLS);
    expect(r.finalHead).toBeGreaterThan(KILLS / 2);
  }, 600_000);
});
