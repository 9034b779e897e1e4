import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../core/cli/main.ts';
import { conformancePath } from '../support/conformance.ts';

const ST_EXAMPLE = conformancePath('ethereum-tests', 'GeneralStateTests', 'stExample');

/** Runs `xone statetest` in-process (the same code path as the bin) and captures what it prints. */
async function statetest(...args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    const code = await main(['statetest', ...args]);
    return { code, out: lines.join('') };
  } finally {
    spy.mockRestore();
    process.exitCode = undefined;
  }
}

describe('GeneralStateTests stExample through `xone statetest`', () => {
  afterEach(() => {
    process.exitCode = undefined;
  });

  it('default: every London and Shanghai post entry passes', async () => {
    const { code, out } = await statetest('--fork', 'London,Shanghai', ST_EXAMPLE);
    expect(out).not.toContain('FAIL');
    expect(out).toMatch(/^76 passed, 0 failed$/m);
    expect(code).toBe(0);
  });

  it('error: a wrong expected root is reported with both values and exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xone-st-'));
    const json = JSON.parse(readFileSync(join(ST_EXAMPLE, 'add11.json'), 'utf8')) as Record<
      string,
      { post: Record<string, { hash: string }[]> }
    >;
    const test = Object.values(json)[0];
    const entry = (test?.post.London ?? [])[0];
    if (entry === undefined) throw new Error('fixture shape changed');
    entry.hash = `0x${'11'.repeat(32)}`;
    writeFileSync(join(dir, 'broken.json'), JSON.stringify(json));
    const { code, out } = await statetest('--fork', 'London,Shanghai', dir);
    expect(out).toMatch(/FAIL .*add11\/London\/0.*stateRoot: expected 0x1111.*, got 0xe8010ce5/);
    expect(out).toMatch(/^1 passed, 1 failed$/m);
    expect(code).toBe(1);
  });
});
