/**
 * Reorgs from out-of-turn blocks, on a three-signer Clique chain: the follower holds branch A (block 2 sealed by one
 * signer); a peer serves the longer branch B (another block 2, out of turn, then block 3). The follower finds the
 * common ancestor, unwinds chain and state to it, and imports B. Without an unwind the follower says so and keeps A.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBlock } from '../../core/chain/block/index.ts';
import { parseGenesis, type Genesis } from '../../core/chain/genesis/index.ts';
import { headerHash } from '../../core/chain/header/index.ts';
import { buildCliqueExtra } from '../../core/consensus/clique/index.ts';
import { createCapturingLogger } from '../../core/log/capturingLogger.ts';
import { ChainService } from '../../core/node/chain/chainService.ts';
import { rawBlock } from '../../core/node/chain/rawBlock.ts';
import { devGenesisJson } from '../../core/node/dev/devChain.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { Follower } from '../../core/sync/follower.ts';
import { storeServingSource } from '../../core/sync/serving/storeServingSource.ts';
import { HttpSyncSource } from '../../core/sync/source/httpSyncSource.ts';
import { chainServiceTarget, type SyncTarget } from '../../core/sync/target.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';
import { accounts, serveSource, transfer, type Served } from './support/chain.ts';
import { reopeningTarget } from './support/reopenUnwind.ts';

const newDatadir = datadirFactory();
const keys = accounts.map((a) => hexToBytes(a.privateKey));
const json = devGenesisJson(accounts);
json.extraData = bytesToHex(buildCliqueExtra(new Uint8Array(32), accounts.map((a) => hexToBytes(a.address)).sort(Buffer.compare)));
const genesis: Genesis = parseGenesis(json);
const genesisHash = headerHash(genesis.genesisHeader);
const open: ChainService[] = [];
let branchA: Uint8Array[];
let peerB: ChainService;
let served: Served;

function signer(i: number): ChainService {
  const s = ChainService.open({ datadir: newDatadir(), genesis, batch: 0, signerKey: keys[i] });
  open.push(s);
  return s;
}

async function produce(s: ChainService, withTx = false): Promise<Uint8Array> {
  const parent = s.head();
  const { head } = await s.produce({ txs: withTx ? [transfer(0n)] : [], timestamp: parent.header.timestamp + 2n });
  return rawBlock(s.store, head.hash) as Uint8Array;
}

beforeAll(async () => {
  // Block 1 by signer 1; branch A: block 2 by signer 2 (a transfer in it); branch B: block 2 by signer 0, block 3 by
  // signer 1 (a signer may seal again only two blocks later with three signers).
  const s1 = signer(1);
  const b1 = await produce(s1);
  const s2 = signer(2);
  await s2.importBlocks([b1]);
  branchA = [b1, await produce(s2, true)];
  const s0 = signer(0);
  await s0.importBlocks([b1]);
  const b2 = await produce(s0);
  await s1.importBlocks([b2]);
  await produce(s1);
  peerB = s1;
  served = await serveSource(
    storeServingSource({ reader: peerB.store, chainId: genesis.config.chainId, submitTx: async () => new Uint8Array(32) }),
  );
});

afterAll(async () => {
  await served?.close();
  for (const s of open) s.close();
});

function follower(target: SyncTarget) {
  const logger = createCapturingLogger();
  const f = new Follower(
    { batch: 16 },
    { target, sources: [new HttpSyncSource({ url: served.url, genesisHash, chainId: genesis.config.chainId })], logger },
  );
  return { f, logger };
}

describe('reorg', () => {
  it('behavior: a longer peer branch replaces ours: unwind to the common ancestor, then import', async () => {
    const { target, current } = reopeningTarget(newDatadir(), genesis, 16);
    await target.importBlocks(branchA);
    expect(current().head().number).toBe(2n);
    const { f, logger } = follower(target);
    await f.syncOnce();
    open.push(current());
    const head = current().head();
    expect(bytesToHex(head.hash)).toBe(bytesToHex(peerB.head().hash));
    expect(head.number).toBe(3n);
    expect(bytesToHex(head.header.stateRoot)).toBe(bytesToHex(peerB.head().header.stateRoot));
    // Branch A's transfer was unwound with the state (B has no transaction): B's root, not A's.
    expect(bytesToHex(head.header.stateRoot)).not.toBe(bytesToHex(decodeBlock(branchA[1]).header.stateRoot));
    expect(logger.records.filter((r) => r.msg === 'Reorg')).toMatchObject([{ level: 'warn', ctx: { from: '2', to: '1', depth: 1 } }]);
    expect(logger.records.filter((r) => r.msg === 'Dropped peer')).toEqual([]);
  });

  it('error: without an unwind the follower keeps its chain and says what it would need', async () => {
    const service = ChainService.open({ datadir: newDatadir(), genesis, batch: 16 });
    open.push(service);
    await service.importBlocks(branchA);
    service.steady();
    const { f, logger } = follower(chainServiceTarget(service));
    await f.syncOnce();
    expect(service.head().number).toBe(2n);
    expect(bytesToHex(service.head().hash)).toBe(bytesToHex(headerHash(decodeBlock(branchA[1]).header)));
    expect(logger.records.find((r) => r.level === 'error')).toMatchObject({
      msg: expect.stringContaining('reorg needs an unwind'),
      ctx: { ancestor: '1', head: '2' },
    });
  });
});
