import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { decodeBlock, encodeBlock } from '../../core/chain/block/index.ts';
import { main } from '../../core/cli/main.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { keccak256 } from '../../core/primitives/keccak.ts';
import { conformancePath } from '../support/conformance.ts';

const DIR = conformancePath('execution-apis-london');
const GENESIS = join(DIR, 'genesis.json');

/** Runs `xone …` in-process and captures stdout and stderr. */
async function xone(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => out.push(String(c)) > 0);
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => err.push(String(c)) > 0);
  try {
    const code = await main(args);
    return { code, out: out.join(''), err: err.join('') };
  } finally {
    o.mockRestore();
    e.mockRestore();
    process.exitCode = undefined;
  }
}

/** The fixture's head: number from eth_blockNumber, hash = keccak of debug_getRawHeader of that block. */
function fixtureHead(): { number: bigint; hash: string } {
  const result = (file: string): string => {
    const line = readFileSync(join(DIR, file), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('<< ')) as string;
    return (JSON.parse(line.slice(3)) as { result: string }).result;
  };
  const number = BigInt(result('eth_blockNumber/simple-test.io'));
  const rawHeader = result('debug_getRawHeader/get-block-n.io');
  expect(readFileSync(join(DIR, 'debug_getRawHeader/get-block-n.io'), 'utf8')).toContain(`"params":["0x${number.toString(16)}"]`);
  return { number, hash: bytesToHex(keccak256(hexToBytes(rawHeader))) };
}

/** Digest of every row of every table: equal digests mean the store did not change. */
function storeDigest(datadir: string): string {
  const db = new Database(join(datadir, 'chain.sqlite'), { readonly: true });
  try {
    const h = createHash('sha256');
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    for (const { name } of tables) {
      for (const row of db.prepare(`SELECT * FROM "${name}"`).all())
        h.update(name + JSON.stringify(row, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v)));
    }
    return h.digest('hex');
  } finally {
    db.close();
  }
}

describe('xone import of the execution-apis London chain', () => {
  it('default: chain.rlp on its genesis ends at the fixture head; a re-run skips every block', async () => {
    const head = fixtureHead();
    const datadir = mkdtempSync(join(tmpdir(), 'xone-import-'));
    const first = await xone('import', '--genesis', GENESIS, '--datadir', datadir, join(DIR, 'chain.rlp'));
    expect(first.err).not.toContain('error');
    expect(first.code).toBe(0);
    expect(first.out).toMatch(new RegExp(`imported 3 blocks, 3 txs, .* head ${head.number} ${head.hash}\\n$`));
    const again = await xone('import', '--genesis', GENESIS, '--datadir', datadir, join(DIR, 'chain.rlp'));
    expect(again.code).toBe(0);
    expect(again.out).toContain(`imported 0 blocks, 0 txs, 0 gas`);
    expect(again.out).toContain(`skipped 3 known; head ${head.number} ${head.hash}`);
  });

  it('error: bad.rlp is refused on the bare genesis with the field and both values', async () => {
    const datadir = mkdtempSync(join(tmpdir(), 'xone-import-'));
    const r = await xone('import', '--genesis', GENESIS, '--datadir', datadir, join(DIR, 'bad.rlp'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/invalid block: parentHash: expected 0x[0-9a-f]{64}, got 0x41e7e67c/);
    expect(r.out).toContain('imported 0 blocks');
  });

  it('error: a block with a wrong gasUsed is refused and leaves the store exactly as before', async () => {
    const datadir = mkdtempSync(join(tmpdir(), 'xone-import-'));
    expect((await xone('import', '--genesis', GENESIS, '--datadir', datadir, join(DIR, 'chain.rlp'))).code).toBe(0);
    const before = storeDigest(datadir);
    // bad.rlp's generator meant gasUsed + 1 (its edit was discarded); make that block and re-encode it.
    const block = decodeBlock(readFileSync(join(DIR, 'bad.rlp')));
    const header = { ...block.header, gasUsed: block.header.gasUsed + 1n, rlp: undefined };
    const file = join(datadir, 'tampered.rlp');
    writeFileSync(file, encodeBlock({ ...block, header }));
    const r = await xone('import', '--genesis', GENESIS, '--datadir', datadir, file);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/gasUsed: expected 21000, got 21001/);
    expect(storeDigest(datadir)).toBe(before);
    // The untampered block is a valid child of block 3.
    const ok = await xone('import', '--genesis', GENESIS, '--datadir', datadir, join(DIR, 'bad.rlp'));
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('imported 1 blocks');
  });
});
