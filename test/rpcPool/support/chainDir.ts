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
import { signTransaction } from '../../../core/chain/transaction/index.ts';
import type { HeaderData } from '../../../core/rpc/encode/types.ts';
import { headerData } from '../../../core/rpcBackend/convert.ts';
import { ethereumHeaderCodec } from '../../../core/chain/header/index.ts';
import { decodeRlp } from '../../../core/primitives/rlp.ts';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** JUMPDEST PUSH1 0 JUMP: runs until its gas or its time ends. */
export const LOOP = hexToBytes('0x' + 'aa'.repeat(20));
/**
 * Calls the EIP-2537 pairing precompile (0x0f) on one (G1, G2) pair in a loop until its gas ends: milliseconds per
 * 70,300 gas, so even EIP-7825's 2^24 (the most an Osaka estimate tries) outlasts a 300 ms budget on any host.
 */
export const SLOW_LOOP = hexToBytes('0x' + 'ab'.repeat(20));
/** Returns the 32-byte word 42. */
export const VIEW = hexToBytes('0x' + 'bb'.repeat(20));
/** REVERT with no data. */
export const REVERTER = hexToBytes('0x' + 'cc'.repeat(20));
/** LOG0 of empty data, then STOP: block 2 calls it once. */
export const EMITTER = hexToBytes('0x' + 'dd'.repeat(20));

export interface ChainDir {
  datadir: string;
  genesis: Genesis;
  /** The head: block 2, whose one transaction emitted one log (block 1 holds the code edits). */
  head: HeaderData;
}

export async function makeChainDir(name: string): Promise<ChainDir> {
  mkdirSync(join(ROOT, '.xone', 'test-e2e'), { recursive: true });
  const datadir = mkdtempSync(join(ROOT, '.xone', 'test-e2e', `${name}-`));
  const accounts = devAccounts(3);
  const genesis = parseGenesis(devGenesisJson(accounts));
  const service = ChainService.open({ datadir, genesis, batch: 0, signerKey: hexToBytes(accounts[0].privateKey) });
  try {
    const now = BigInt(Math.floor(Date.now() / 1000));
    await service.produce({
      txs: [],
      timestamp: now,
      devEdits: [
        { address: LOOP, code: hexToBytes('0x5b600056') },
        { address: SLOW_LOOP, code: hexToBytes(pairingLoop()) },
        { address: VIEW, code: hexToBytes('0x602a60005260206000f3') },
        { address: REVERTER, code: hexToBytes('0x60006000fd') },
        { address: EMITTER, code: hexToBytes('0x60006000a000') },
      ],
    });
    const tx = signTransaction(
      {
        type: 2,
        chainId: 1337n,
        nonce: 0n,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1n,
        gasLimit: 100_000n,
        to: EMITTER,
        value: 0n,
        data: new Uint8Array(0),
      },
      hexToBytes(accounts[1].privateKey),
    );
    const r2 = await service.produce({ txs: [{ raw: tx.raw, sender: hexToBytes(accounts[1].address) }], timestamp: now + 1n });
    if (r2.head.txHashes.length !== 1) throw new Error('the log-emitting transaction was not included');
    const rlp = r2.head.headerRlp;
    return { datadir, genesis, head: headerData(ethereumHeaderCodec.decode(decodeRlp(rlp), rlp), r2.head.hash) };
  } finally {
    service.close();
  }
}

/** CODECOPY the 384-byte pair after the loop to memory 0; JUMPDEST; STATICCALL 0x0f(0..384 -> 512..544); POP; JUMP. */
function pairingLoop(): string {
  const word = (v: bigint): string => v.toString(16).padStart(128, '0');
  const g1 = bls12_381.G1.Point.BASE.toAffine();
  const g2 = bls12_381.G2.Point.BASE.toAffine();
  const pair = word(g1.x) + word(g1.y) + word(g2.x.c0) + word(g2.x.c1) + word(g2.y.c0) + word(g2.y.c1);
  return '0x' + '61018060195f39' + '5b' + '6020610200610180' + '5f600f5afa50' + '600756' + pair;
}
