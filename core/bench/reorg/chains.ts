/**
 * The chains bench:reorg switches between, sealed by real Clique signers (three, in the snapshot's order): a trunk A
 * whose every block is sealed in turn (weight 2), and for each depth d a branch B_d off A's block at height |A| − d of
 * 2d + 1 blocks sealed out of turn (weight 1). B_d's first 2d blocks weigh at most A's last d (equal at a greater
 * height: no reorg, geth's tie-break), so they are stored as side blocks; its last block outweighs A, and a node on A
 * reorgs d blocks deep onto 2d + 1. (In-turn branch blocks cannot work: with three signers the in-turn signer of a
 * height is the one that sealed the parent on the other branch, and a heavier first block would reorg at once.)
 * Every block carries `txsPerBlock` transfers. Built with the node's own chain service in scratch datadirs.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { parseGenesis, type Genesis } from '../../chain/genesis/index.ts';
import { signTransaction } from '../../chain/transaction/index.ts';
import { ChainService } from '../../chainService/chainService.ts';
import { cliqueGenesisJson } from '../../node/dev/cliqueGenesisJson.ts';
import { bytesToHex } from '../../primitives/hex.ts';
import { addressFromPrivateKey } from '../../primitives/secp256k1/index.ts';
import { rawBlock } from '../../store/read/rawBlock.ts';

export const REORG_CHAIN_ID = 2041;
const PERIOD = 2;

const key = (tag: number, i: number): Uint8Array => {
  const k = new Uint8Array(32);
  k[0] = tag;
  k[31] = i + 1;
  return k;
};

/** Signer keys, in the snapshot's (address) order. */
export const SIGNER_KEYS: Uint8Array[] = [0, 1, 2]
  .map((i) => key(0x51, i))
  .sort((a, b) => Buffer.compare(addressFromPrivateKey(a), addressFromPrivateKey(b)));
const SENDERS = [0, 1, 2, 3].map((i) => key(0x52, i));

/** What the bench runs on. */
export interface ReorgChains {
  genesisJson: Record<string, unknown>;
  genesis: Genesis;
  trunk: Uint8Array[];
  branches: Map<number, Uint8Array[]>;
}

/** Builds the trunk (`length` blocks) and one branch per depth, under `dir`. */
export async function buildReorgChains(dir: string, length: number, depths: readonly number[], txsPerBlock: number): Promise<ReorgChains> {
  // Every block's timestamp in the past (Clique refuses blocks from the future), the longest branch included.
  const timestamp = Math.floor(Date.now() / 1000) - PERIOD * (length + 2 * Math.max(...depths) + 10) - 60;
  const genesisJson = cliqueGenesisJson({
    chainId: REORG_CHAIN_ID,
    period: PERIOD,
    epoch: 30_000,
    timestamp,
    signers: SIGNER_KEYS.map((k) => addressFromPrivateKey(k)),
    alloc: Object.fromEntries(SENDERS.map((k) => [bytesToHex(addressFromPrivateKey(k)).slice(2), 10n ** 24n])),
  });
  const genesis = parseGenesis(genesisJson);
  const open = (): ChainService[] =>
    SIGNER_KEYS.map((k) => ChainService.open({ datadir: mkdtempSync(join(dir, 's-')), genesis, batch: 0, signerKey: k }));
  /** Seals `count` blocks on `services` (all at the same head), each by the in-turn signer or the one after it. */
  const seal = async (services: ChainService[], count: number, inTurn: boolean, salt: bigint): Promise<Uint8Array[]> => {
    const out: Uint8Array[] = [];
    for (let i = 0; i < count; i++) {
      const parent = services[0].head();
      const number = parent.number + 1n;
      const who = (Number(number % 3n) + (inTurn ? 0 : 1)) % 3;
      const txs = transfers(number, txsPerBlock, salt);
      const { head } = await services[who].produce({ txs, timestamp: parent.header.timestamp + BigInt(PERIOD) });
      const rlp = rawBlock(services[who].store, head.hash) as Uint8Array;
      for (const [j, s] of services.entries()) if (j !== who) await s.importBlocks([rlp]);
      out.push(rlp);
    }
    return out;
  };
  const trunkServices = open();
  const trunk = await seal(trunkServices, length, true, 1n);
  for (const s of trunkServices) s.close();
  const branches = new Map<number, Uint8Array[]>();
  for (const d of depths) {
    const services = open();
    for (const s of services) await s.importBlocks(trunk.slice(0, length - d));
    branches.set(d, await seal(services, 2 * d + 1, false, 2n));
    for (const s of services) s.close();
  }
  return { genesisJson, genesis, trunk, branches };
}

/**
 * `count` transfers for block `number`: each sender's nonces are (number − 1) × share .. number × share − 1, the same
 * on every branch; `value` tells the branches apart.
 */
function transfers(number: bigint, count: number, value: bigint): { raw: Uint8Array; sender: Uint8Array }[] {
  const share = Math.ceil(count / SENDERS.length);
  const out: { raw: Uint8Array; sender: Uint8Array }[] = [];
  for (let i = 0; i < count; i++) {
    const k = SENDERS[i % SENDERS.length];
    const nonce = (number - 1n) * BigInt(share) + BigInt(Math.floor(i / SENDERS.length));
    const tx = signTransaction(
      {
        type: 2,
        chainId: BigInt(REORG_CHAIN_ID),
        nonce,
        maxFeePerGas: 1_000_000_000_000n,
        maxPriorityFeePerGas: 1n,
        gasLimit: 21_000n,
        to: addressFromPrivateKey(SENDERS[(i + 1) % SENDERS.length]),
        value,
        data: new Uint8Array(0),
      },
      k,
    );
    out.push({ raw: tx.raw, sender: addressFromPrivateKey(k) });
  }
  return out;
}
