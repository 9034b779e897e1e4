/** `xone init` / `xone import` / `xone export` round trip: the exported chain is byte-identical to the imported file. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conformancePath } from '../support/conformance.ts';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'xone.mjs');
mkdirSync(join(root, '.xone'), { recursive: true });
const work = mkdtempSync(join(root, '.xone', 'cli-ie-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const genesis = conformancePath('execution-apis-london', 'genesis.json');
const chain = conformancePath('execution-apis-london', 'chain.rlp');
const xone = (...args: string[]) => execFileSync(process.execPath, [bin, ...args], { encoding: 'utf8', stdio: 'pipe' });

describe('xone init / export', () => {
  it('default: init writes genesis, import + export reproduces chain.rlp byte for byte', () => {
    const datadir = join(work, 'dd');
    expect(xone('init', '--genesis', genesis, '--datadir', datadir)).toMatch(/head 0 0x/);
    xone('import', '--genesis', genesis, '--datadir', datadir, chain);
    const out = join(work, 'out.rlp');
    expect(xone('export', '--datadir', datadir, out)).toMatch(/exported blocks 1\.\.3/);
    expect(Buffer.compare(readFileSync(out), readFileSync(chain))).toBe(0);
  });

  it('error: init with a different genesis on an existing datadir is refused, naming both hashes', () => {
    const datadir = join(work, 'dd2');
    xone('init', '--genesis', genesis, '--datadir', datadir);
    const other = JSON.parse(readFileSync(genesis, 'utf8')) as { extraData?: string };
    other.extraData = '0x01';
    const otherPath = join(work, 'other.json');
    writeFileSync(otherPath, JSON.stringify(other));
    let stderr = '';
    try {
      xone('init', '--genesis', otherPath, '--datadir', datadir);
    } catch (err) {
      stderr = (err as { stderr: string }).stderr;
    }
    expect(stderr).toMatch(/datadir holds genesis 0x[0-9a-f]{64}, the given genesis is 0x[0-9a-f]{64}/);
  });
});
