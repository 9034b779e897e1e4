import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../core/cli/main.ts';
import { conformancePath, jsonFilesUnder, readJson } from '../support/conformance.ts';

const BLOCKCHAIN_TESTS = conformancePath('ethereum-tests', 'BlockchainTests');
/** Side chains and fork choice (issue #16): blocks on every branch, the heaviest chain's tip must be the head. */
const FORK_STRESS = conformancePath('ethereum-tests-next', 'BlockchainTests', 'ValidBlocks', 'bcForkStressTest');

/** Runs `xone blocktest` in-process (the bin's code path) and captures its output. */
async function blocktest(...args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    const code = await main(['blocktest', ...args]);
    return { code, out: lines.join('') };
  } finally {
    spy.mockRestore();
    process.exitCode = undefined;
  }
}

/** London and Shanghai cases among the shipped files, counted from the JSON itself. */
function countTargetCases(): number {
  let n = 0;
  for (const file of jsonFilesUnder(BLOCKCHAIN_TESTS)) {
    for (const t of Object.values(readJson<Record<string, { network: string }>>(file)))
      if (t.network === 'London' || t.network === 'Shanghai') n++;
  }
  return n;
}

describe('BlockchainTests through `xone blocktest`', () => {
  it(
    'default: every London and Shanghai case passes (bcValidBlockTest, bcExample, bcEIP1559, bcInvalidHeaderTest)',
    { timeout: 180_000 },
    async () => {
      const expected = countTargetCases();
      expect(expected).toBe(99);
      const { code, out } = await blocktest(BLOCKCHAIN_TESTS);
      expect(out).not.toContain('FAIL');
      expect(out).toMatch(new RegExp(`^${expected} passed, 0 failed$`, 'm'));
      expect(code).toBe(0);
    },
  );

  it('default: bcForkStressTest (London and Shanghai): side chains stored, the heaviest chain wins', { timeout: 120_000 }, async () => {
    let expected = 0;
    for (const file of jsonFilesUnder(FORK_STRESS))
      for (const t of Object.values(readJson<Record<string, { network: string }>>(file)))
        if (t.network === 'London' || t.network === 'Shanghai') expected++;
    expect(expected).toBe(3);
    const { code, out } = await blocktest(FORK_STRESS);
    expect(out).not.toContain('FAIL');
    expect(out).toMatch(new RegExp(`^${expected} passed, 0 failed$`, 'm'));
    expect(code).toBe(0);
  });

  it('error: a wrong lastblockhash is reported with both values and exit 1', async () => {
    const file = join(BLOCKCHAIN_TESTS, 'ValidBlocks', 'bcExample', 'shanghaiExample.json');
    const json = readJson<Record<string, { lastblockhash: string }>>(file);
    for (const t of Object.values(json)) t.lastblockhash = `0x${'22'.repeat(32)}`;
    const dir = mkdtempSync(join(tmpdir(), 'xone-bt-'));
    writeFileSync(join(dir, 'broken.json'), JSON.stringify(json));
    const { code, out } = await blocktest(dir);
    expect(out).toMatch(/FAIL .*shanghaiExample_Shanghai: lastblockhash: expected 0x2222.*, got 0x[0-9a-f]{64}/);
    expect(out).toMatch(/^0 passed, 1 failed$/m);
    expect(code).toBe(1);
  });
});
