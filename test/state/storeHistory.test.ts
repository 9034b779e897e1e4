import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGenesis } from '../../core/chain/genesis/index.ts';
import { BlockImporter } from '../../core/exec/import/blockImporter.ts';
import { hexToBytes } from '../../core/primitives/hex.ts';
import { splitRlpStream } from '../../core/primitives/rlp.ts';
import { HistoricalState } from '../../core/state/store/history.ts';
import { STATE_MIGRATIONS } from '../../core/state/store/migrations.ts';
import { ChainStore } from '../../core/store/index.ts';
import { conformancePath } from '../support/conformance.ts';

const DIR = conformancePath('execution-apis-london');
const genesis = parseGenesis(readFileSync(join(DIR, 'genesis.json'), 'utf8'));
const blocks = splitRlpStream(readFileSync(join(DIR, 'chain.rlp')));
const SENDER = hexToBytes('0x658bdf435d810c91414ec09147daa6db62406379');
const CONTRACT = hexToBytes('0xaa00000000000000000000000000000000000000');

function open(datadir: string): { store: ChainStore; importer: BlockImporter } {
  const store = ChainStore.open({ datadir, batch: 0 }, { migrations: STATE_MIGRATIONS });
  return {
    store,
    importer: BlockImporter.open(store, { header: genesis.genesisHeader, alloc: genesis.alloc }, { config: genesis.config }),
  };
}

describe('state history in the store', () => {
  it('behavior: reads at every earlier block, unwind restores the state, and the chain re-imports on top', async () => {
    const datadir = mkdtempSync(join(tmpdir(), 'xone-history-'));
    let { store, importer } = open(datadir);
    for (const rlp of blocks) await importer.importRlp(rlp);
    const nonceAt = (n: number): bigint | undefined => new HistoricalState(store, n).getAccount(SENDER)?.nonce;
    expect([0, 1, 2, 3].map(nonceAt)).toEqual([0n, 1n, 2n, 3n]);
    const balances = [0, 1, 2, 3].map((n) => new HistoricalState(store, n).getAccount(SENDER)?.balance as bigint);
    expect(balances[0]).toBe(genesis.alloc.get('658bdf435d810c91414ec09147daa6db62406379')?.balance);
    for (let i = 1; i < 4; i++) expect((balances[i] as bigint) < (balances[i - 1] as bigint)).toBe(true);
    expect(() => new HistoricalState(store, 9)).toThrow(/state at block 9 is not available/);

    expect(importer.unwindTo(1)).toBe(2);
    expect(importer.state.getAccount(SENDER)?.nonce).toBe(1n);
    expect(importer.headInfo.header.number).toBe(1n);
    // The same importer continues on the unwound head.
    await importer.importRlp(blocks[1] as Uint8Array);
    expect(importer.state.getAccount(SENDER)?.nonce).toBe(2n);
    expect(importer.unwindTo(1)).toBe(1);
    expect(() => new HistoricalState(store, 2)).toThrow(/not available/);
    store.close();

    ({ store, importer } = open(datadir));
    expect(importer.headInfo.header.number).toBe(1n);
    for (const rlp of blocks.slice(1)) await importer.importRlp(rlp);
    expect(importer.headInfo.header.number).toBe(3n);
    expect(importer.state.getAccount(SENDER)?.nonce).toBe(3n);
    store.close();
  });

  it('behavior: code reads hand out one array per hash on a connection, at any block (an EVM reused across jobs keeps its jump analyses)', async () => {
    const datadir = mkdtempSync(join(tmpdir(), 'xone-history-code-'));
    const { store, importer } = open(datadir);
    for (const rlp of blocks) await importer.importRlp(rlp);
    const account = new HistoricalState(store, 3).getAccount(CONTRACT);
    expect(account).toBeDefined();
    const first = new HistoricalState(store, 3).getCode(account?.codeHash as Uint8Array);
    expect(first).toEqual(genesis.alloc.get('aa00000000000000000000000000000000000000')?.code);
    expect(new HistoricalState(store, 1).getCode(account?.codeHash as Uint8Array)).toBe(first);
    expect(new HistoricalState(store, 3).getCode(new Uint8Array(32))).toBeUndefined();
    store.close();
  });
});
