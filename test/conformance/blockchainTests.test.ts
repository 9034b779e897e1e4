import { describe, expect, it, vi } from 'vitest';
import { main } from '../../core/cli/main.ts';
import { conformancePath, jsonFilesUnder, readJson } from '../support/conformance.ts';

const BLOCKCHAIN_TESTS = conformancePath('ethereum-tests', 'BlockchainTests');

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
});
