import { describe, expect, it, vi } from 'vitest';
import { main } from '../../core/cli/main.ts';
import { conformancePath, jsonFilesUnder, readJson } from '../support/conformance.ts';

const NEXT = (...parts: string[]): string => conformancePath('ethereum-tests-next', ...parts);
/** The Cancun BlockchainTests of ethereum-tests-next (bcForkStressTest is fork choice, not Cancun: left out). */
const CANCUN_BLOCK_TESTS = [
  NEXT('BlockchainTests', 'GeneralStateTests', 'Cancun'),
  NEXT('BlockchainTests', 'ValidBlocks', 'bcEIP1153-transientStorage'),
  NEXT('BlockchainTests', 'ValidBlocks', 'bcEIP4844-blobtransactions'),
];
const CANCUN_STATE_TESTS = NEXT('GeneralStateTests', 'Cancun');

/** Runs an `xone` command in-process (the bin's code path) and captures its output. */
async function xone(...args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    const code = await main(args);
    return { code, out: lines.join('') };
  } finally {
    spy.mockRestore();
    process.exitCode = undefined;
  }
}

/** Cases of `network` in the files under `dirs`, counted from the JSON itself. */
function blockCases(dirs: readonly string[], network: string): number {
  let n = 0;
  for (const dir of dirs) {
    for (const file of jsonFilesUnder(dir)) {
      for (const t of Object.values(readJson<Record<string, { network: string }>>(file))) if (t.network === network) n++;
    }
  }
  return n;
}

/** Post entries of `fork` in the state tests under `dir`. */
function stateEntries(dir: string, fork: string): number {
  let n = 0;
  for (const file of jsonFilesUnder(dir)) {
    for (const t of Object.values(readJson<Record<string, { post: Record<string, unknown[]> }>>(file))) n += t.post[fork]?.length ?? 0;
  }
  return n;
}

describe('Cancun vectors (ethereum-tests-next) through `xone blocktest` and `xone statetest`', () => {
  it(
    'default: every Cancun BlockchainTests case passes (EIP-1153, EIP-4844, EIP-5656 and the blob transaction block)',
    { timeout: 300_000 },
    async () => {
      const expected = blockCases(CANCUN_BLOCK_TESTS, 'Cancun');
      expect(expected).toBe(193);
      const { code, out } = await xone('blocktest', ...CANCUN_BLOCK_TESTS);
      expect(out).not.toContain('FAIL');
      expect(out).toMatch(new RegExp(`^${expected} passed, 0 failed$`, 'm'));
      expect(code).toBe(0);
    },
  );

  it('default: every Cancun post entry of the GeneralStateTests passes', { timeout: 120_000 }, async () => {
    const expected = stateEntries(CANCUN_STATE_TESTS, 'Cancun');
    expect(expected).toBeGreaterThan(150);
    const { code, out } = await xone('statetest', '--fork', 'Cancun', CANCUN_STATE_TESTS);
    expect(out).not.toContain('FAIL');
    expect(out).toMatch(new RegExp(`^${expected} passed, 0 failed$`, 'm'));
    expect(code).toBe(0);
  });

  it('error: a network with no case in the files is said so, with exit 1 and no summary line', async () => {
    const { code, out } = await xone(
      'blocktest',
      '--network',
      'Prague',
      NEXT('BlockchainTests', 'ValidBlocks', 'bcEIP1153-transientStorage'),
    );
    expect(out).toContain('no case in these files is of network Prague: nothing was run');
    expect(out).not.toMatch(/passed, 0 failed/);
    expect(code).toBe(1);
  });

  it('error: an unknown network or fork name is an error naming it', async () => {
    const errors: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      errors.push(String(chunk));
      return true;
    });
    try {
      expect((await xone('blocktest', '--network', 'Pragu', CANCUN_STATE_TESTS)).code).toBe(1);
      expect((await xone('statetest', '--fork', 'Amsterdam', CANCUN_STATE_TESTS)).code).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect(errors.join('')).toMatch(/unknown network Pragu \(this node runs: .*Osaka\)/);
    expect(errors.join('')).toMatch(/unknown fork Amsterdam/);
  });
});
