/**
 * The prebuilt chain `bench:follow` serves: full 30 M gas blocks of value transfers (1,428 per block, one per sender,
 * 1,428 senders; bench:exec's `transferWorkload`), sealed by a Clique signer and committed into a producer datadir
 * through the node's own ChainService (what bench:sync-http does). Nothing here is timed. The result is cached under
 * `<root>/chain-<blocks>` (genesis.json, signer key, datadir, a `built.json` marker written last), because building
 * costs as much as following; each run copies the datadir, since the producer keeps sealing on top of it.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseGenesis } from '../../chain/genesis/index.ts';
import { ChainService } from '../../chainService/chainService.ts';
import { cliqueGenesisJson } from '../../node/dev/cliqueGenesisJson.ts';
import { bytesToHex } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { addressFromPrivateKey } from '../../primitives/secp256k1/index.ts';
import { TRANSFERS_PER_BLOCK, transferWorkload } from '../exec/workloads.ts';

/** Chain id of the bench network (bench:exec's). */
export const FOLLOW_CHAIN_ID = 2040n;
/** Seconds between prebuilt blocks (the genesis `clique.period`). */
const PERIOD = 2;

/** A built chain on disk: what the producer and the follower are started with. */
export interface PrebuiltChain {
  dir: string;
  genesisFile: string;
  signerKeyFile: string;
  datadir: string;
  blocks: number;
  txs: number;
  gas: string;
  headHash: string;
  /** Seconds spent building (0 when it came from the cache). */
  buildSeconds: number;
  cached: boolean;
  /** One funded sender, for eth_getBalance during the import. */
  probeAddress: string;
}

/** The bench signer: keccak256("xone-bench-follow-signer"). */
function signerKey(): Uint8Array {
  return keccak256(new TextEncoder().encode('xone-bench-follow-signer'));
}

function genesisJson(alloc: ReturnType<typeof transferWorkload>['alloc'], signer: Uint8Array, timestamp: number): Record<string, unknown> {
  const balances: Record<string, bigint> = {};
  for (const [address, a] of alloc) balances[bytesToHex(address).slice(2)] = a.balance;
  return cliqueGenesisJson({
    chainId: Number(FOLLOW_CHAIN_ID),
    period: PERIOD,
    epoch: 30_000,
    timestamp,
    signers: [signer],
    alloc: balances,
  });
}

/** The cached chain of `blocks` blocks under `root`, built first when missing (or when `rebuild`). */
export async function prebuiltChain(
  root: string,
  blocks: number,
  rebuild = false,
  log: (m: string) => void = () => {},
): Promise<PrebuiltChain> {
  const dir = join(root, `chain-${blocks}`);
  const marker = join(dir, 'built.json');
  if (!rebuild && existsSync(marker))
    return { ...(JSON.parse(readFileSync(marker, 'utf8')) as PrebuiltChain), buildSeconds: 0, cached: true };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const key = signerKey();
  const workload = transferWorkload(FOLLOW_CHAIN_ID, blocks);
  log(`signed ${workload.blocks.length * TRANSFERS_PER_BLOCK} transfers in ${Math.round(performance.now() - started)} ms`);
  // Timestamps end well in the past, so the chain stays valid (no future blocks) however long the cache lives.
  const genesisTs = Math.floor(Date.now() / 1000) - PERIOD * (blocks + 30);
  const json = genesisJson(workload.alloc, addressFromPrivateKey(key), genesisTs);
  const genesisFile = join(dir, 'genesis.json');
  writeFileSync(genesisFile, JSON.stringify(json, null, 1));
  const signerKeyFile = join(dir, 'signer.key');
  writeFileSync(signerKeyFile, bytesToHex(key).slice(2) + '\n', { mode: 0o600 });
  chmodSync(signerKeyFile, 0o600);
  const datadir = join(dir, 'datadir');
  const senders = workload.alloc.map(([address]) => address);
  const service = ChainService.open({ datadir, genesis: parseGenesis(json), batch: 0, signerKey: key });
  let gas = 0n;
  let txs = 0;
  let headHash = '';
  try {
    for (const [b, block] of workload.blocks.entries()) {
      const { head, dropped } = await service.produce({
        txs: block.map((tx, i) => ({ raw: tx.raw, sender: senders[i % senders.length] })),
        timestamp: BigInt(genesisTs + PERIOD * (b + 1)),
      });
      if (dropped.length > 0 || head.txHashes.length !== block.length)
        throw new Error(`block ${b + 1}: ${dropped.length} transfers dropped`);
      gas += head.gasUsed;
      txs += head.txHashes.length;
      if ((b + 1) % 8 === 0) log(`built ${b + 1}/${blocks} blocks`);
    }
    headHash = bytesToHex(service.head().hash);
  } finally {
    service.close();
  }
  const built: PrebuiltChain = {
    dir,
    genesisFile,
    signerKeyFile,
    datadir,
    blocks,
    txs,
    gas: gas.toString(),
    headHash,
    buildSeconds: Math.round((performance.now() - started) / 100) / 10,
    cached: false,
    probeAddress: bytesToHex(senders[0]),
  };
  writeFileSync(marker, JSON.stringify(built, null, 1));
  return built;
}

/** A fresh copy of the producer's datadir for one run (the producer seals on top of it). */
export function copyDatadir(chain: PrebuiltChain, to: string): string {
  cpSync(chain.datadir, to, { recursive: true });
  return to;
}
