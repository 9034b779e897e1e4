import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGenesis } from '../../core/chain/genesis/index.ts';
import { importBlocks } from '../../core/exec/import/importFile.ts';
import { bytesToHex, hexToBytes, looseHexToBytes } from '../../core/primitives/hex.ts';
import { getProof } from '../../core/state/store/proof.ts';
import { openReadOnly } from '../../core/store/index.ts';
import { conformancePath } from '../support/conformance.ts';
import type { ProofJson } from '../rpc/support/proofCheck.ts';

const DIR = conformancePath('execution-apis-london');

describe('eth_getProof from the stored trie', () => {
  it.each(['get-account-proof.io', 'get-account-proof-with-storage.io'])('default: %s matches the fixture', async (name) => {
    const lines = readFileSync(join(DIR, 'eth_getProof', name), 'utf8').split('\n');
    const req = JSON.parse((lines.find((l) => l.startsWith('>> ')) as string).slice(3)) as { params: [string, string[], string] };
    const want = (JSON.parse((lines.find((l) => l.startsWith('<< ')) as string).slice(3)) as { result: ProofJson }).result;
    const datadir = mkdtempSync(join(tmpdir(), 'xone-proof-'));
    const genesis = parseGenesis(readFileSync(join(DIR, 'genesis.json'), 'utf8'));
    expect((await importBlocks({ genesis, datadir, files: [join(DIR, 'chain.rlp')] })).error).toBeUndefined();
    const reader = openReadOnly(datadir);
    try {
      const [address, slots, block] = req.params;
      const p = getProof(
        reader,
        Number(block),
        hexToBytes(address),
        slots.map((s) => looseHexToBytes(s)),
      );
      expect(p.accountProof.map(bytesToHex)).toEqual(want.accountProof);
      expect(`0x${p.balance.toString(16)}`).toBe(want.balance);
      expect(`0x${p.nonce.toString(16)}`).toBe(want.nonce);
      expect(bytesToHex(p.codeHash)).toBe(want.codeHash);
      expect(bytesToHex(p.storageHash)).toBe(want.storageHash);
      expect(p.storageProof.map((s) => ({ value: `0x${s.value.toString(16)}`, proof: s.proof.map(bytesToHex) }))).toEqual(
        want.storageProof.map((s) => ({ value: s.value, proof: s.proof })),
      );
    } finally {
      reader.close();
    }
  });
});
