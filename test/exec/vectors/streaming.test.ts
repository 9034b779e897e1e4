import { execFile } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { conformancePath } from '../../support/conformance.ts';

const XONE = join(import.meta.dirname, '..', '..', '..', 'bin', 'xone.mjs');

/**
 * One Shanghai case of the shipped fixtures, after 64 cases of other networks padded to 0.5 MB each (34 MB in all):
 * the shape of an upstream file with every network in it.
 */
function mixedNetworksFile(): string {
  const fixture = conformancePath('ethereum-tests', 'BlockchainTests', 'ValidBlocks', 'bcExample', 'shanghaiExample.json');
  const [[name, shanghai]] = Object.entries(JSON.parse(readFileSync(fixture, 'utf8')) as Record<string, Record<string, unknown>>) as [
    [string, Record<string, unknown>],
  ];
  const file = join(mkdtempSync(join(tmpdir(), 'xone-bt-stream-')), 'mixed.json');
  const fd = openSync(file, 'w');
  const pad = 'ab'.repeat(256 * 1024);
  writeSync(fd, '{');
  for (let i = 0; i < 64; i++)
    writeSync(
      fd,
      `${JSON.stringify(`${name}_other${i}`)}:${JSON.stringify({ ...shanghai, network: i % 2 ? 'Berlin' : 'Istanbul', _info: { pad } })},`,
    );
  writeSync(fd, `${JSON.stringify(name)}:${JSON.stringify(shanghai)}}`);
  closeSync(fd);
  return file;
}

describe('`xone blocktest` streams a file', () => {
  it('behavior: cases of other networks are skipped unparsed, so a 34 MB file runs in a 32 MB heap', { timeout: 120_000 }, async () => {
    // Parsing the whole file (the string and its objects) takes ~70 MB of heap: this limit fails that way of reading.
    const { stdout } = await promisify(execFile)(process.execPath, ['--max-old-space-size=32', XONE, 'blocktest', mixedNetworksFile()], {
      maxBuffer: 1 << 20,
    });
    expect(stdout).toMatch(/^skipped 64 cases of other forks or networks$/m);
    expect(stdout).toMatch(/^1 passed, 0 failed$/m);
  });
});

describe('`xone blocktest` says why it skips a case', () => {
  it(
    'behavior: a case of another seal engine is skipped with that reason (never passed with its seal unchecked)',
    { timeout: 120_000 },
    async () => {
      const fixture = conformancePath('ethereum-tests', 'BlockchainTests', 'ValidBlocks', 'bcExample', 'shanghaiExample.json');
      const [[name, shanghai]] = Object.entries(JSON.parse(readFileSync(fixture, 'utf8')) as Record<string, Record<string, unknown>>) as [
        [string, Record<string, unknown>],
      ];
      const file = join(mkdtempSync(join(tmpdir(), 'xone-bt-seal-')), 'seal.json');
      const cases = {
        [name]: shanghai,
        [`${name}_ethash`]: { ...shanghai, sealEngine: 'Ethash' },
        [`${name}_berlin`]: { ...shanghai, network: 'Berlin' },
      };
      writeFileSync(file, JSON.stringify(cases));
      const { stdout } = await promisify(execFile)(process.execPath, [XONE, 'blocktest', file], { maxBuffer: 1 << 20 });
      expect(stdout).toMatch(/^skipped 1 cases with sealEngine Ethash \(this runner checks no proof-of-work seal/m);
      expect(stdout).toMatch(/^skipped 1 cases of other forks or networks$/m);
      expect(stdout).toMatch(/^1 passed, 0 failed$/m);
    },
  );
});
