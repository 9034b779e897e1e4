/**
 * A real datadir for the execution pool tests: the dev genesis plus one block whose dev state edits install an
 * endless loop, a cheap view (returns 42) and a reverting contract, written by the real chain service.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { parseGenesis, type Genesis } from '../../../core/chain/genesis/index.ts';
import { ChainService } from '../../../core/chainService/chainService.ts';
import { devAccounts, devGenesisJson } from '../../../core/node/dev/devChain.ts';
import { hexToBytes } from '../../../core/primitives/hex.ts';
import type { HeaderData } from '../../../core/rpc/encode/types.ts';
import { headerData } from '../../../core/rpcBackend/convert.ts';
import { ethereumHeaderCodec } from '../../../core/chain/header/index.ts';
import { decodeRlp } from '../../../core/primitives/rlp.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** JUMPDEST PUSH1 0 JUMP: runs until its gas or its time ends. */
export const LOOP = hexToBytes('0x' + 'aa'.repeat(20));
/** Returns the 32-byte word 42. */
export const VIEW = hexToBytes('0x' + 'bb'.repeat(20));
/** REVERT with no data. */
export const REVERTER = hexToBytes('0x' + 'cc'.repeat(20));

export interface ChainDir {
  datadir: string;
  genesis: Genesis;
  /** The head after the edits (block 1). */
  head: HeaderData;
}

export async function makeChainDir(name: string): Promise<ChainDir> {
  mkdirSync(join(ROOT, '.xone', 'test-e2e'), { recursive: true });
  const datadir = mkdtempSync(join(ROOT, '.xone', 'test-e2e', `${name}-`));
  const accounts = devAccounts(3);
  const genesis = parseGenesis(devGenesisJson(accounts));
  const service = ChainService.open({ datadir, genesis, batch: 0, signerKey: hexToBytes(accounts[0].privateKey) });
  try {
    const r = await service.produce({
      txs: [],
      timestamp: BigInt(Math.floor(Date.now() / 1000)),
      devEdits: [
        { address: LOOP, code: hexToBytes('0x5b600056') },
        { address: VIEW, code: hexToBytes('0x602a60005260206000f3') },
        { address: REVERTER, code: hexToBytes('0x60006000fd') },
      ],
    });
    const rlp = r.head.headerRlp;
    return { datadir, genesis, head: headerData(ethereumHeaderCodec.decode(decodeRlp(rlp), rlp), r.head.hash) };
  } finally {
    service.close();
  }
}
