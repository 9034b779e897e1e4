/** The chain service with a real datadir: a producer seals and commits blocks, a follower verifies and imports them. */
import { afterEach, describe, expect, it } from 'vitest';
import { decodeBlock, encodeBlock } from '../../core/chain/block/index.ts';
import { ChainService } from '../../core/chainService/chainService.ts';
import { CliqueEngine } from '../../core/consensus/clique/index.ts';
import { rawBlock } from '../../core/store/read/rawBlock.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';
import { accounts, genesis, signerKey, transfer } from '../sync/support/chain.ts';

const newDatadir = datadirFactory();
const open: ChainService[] = [];
afterEach(() => {
  while (open.length) open.pop()?.close();
});

function service(datadir: string, batch: number, withSigner: boolean): ChainService {
  const s = ChainService.open({ datadir, genesis, batch, ...(withSigner ? { signerKey } : {}) });
  open.push(s);
  return s;
}

describe('ChainService', () => {
  it('default: the producer seals blocks with transactions, durably, and they survive a reopen', async () => {
    const datadir = newDatadir();
    const producer = service(datadir, 0, true);
    const t0 = transfer(0n);
    const first = await producer.produce({ txs: [t0], timestamp: 10n });
    expect(first.head.number).toBe(1n);
    expect(first.head.durable).toBe(true);
    expect(first.head.txHashes.map(bytesToHex)).toEqual([bytesToHex(t0.hash)]);
    // The pool's sender is stored with the block, in the block's own commit.
    expect(producer.store.getSenders(first.head.hash)?.map(bytesToHex)).toEqual([bytesToHex(t0.sender)]);
    const second = await producer.produce({ txs: [transfer(1n)], timestamp: 12n });
    expect(second.head.number).toBe(2n);
    producer.close();
    open.pop();
    const reopened = service(datadir, 0, true);
    expect(bytesToHex(reopened.head().hash)).toBe(bytesToHex(second.head.hash));
  });

  it('behavior: a transaction the state no longer admits is dropped, the block still sealed', async () => {
    const producer = service(newDatadir(), 0, true);
    const stale = transfer(5n); // nonce gap: the account's nonce is 0
    const result = await producer.produce({ txs: [transfer(0n), stale], timestamp: 10n });
    expect(result.dropped.map(bytesToHex)).toEqual([bytesToHex(stale.hash)]);
    expect(result.head.txHashes).toHaveLength(1);
  });

  it('behavior: a follower verifies seals and imports the producer blocks in one batch', async () => {
    const producer = service(newDatadir(), 0, true);
    const heads = [];
    for (let i = 0n; i < 3n; i++) heads.push((await producer.produce({ txs: [transfer(i)], timestamp: 10n + 2n * i })).head);
    const follower = service(newDatadir(), 128, false);
    const raws = heads.map((h) => rawBlock(producer.store, h.hash) as Uint8Array);
    const imported = await follower.importBlocks(raws);
    expect(imported.map((h) => bytesToHex(h.hash))).toEqual(heads.map((h) => bytesToHex(h.hash)));
    expect(follower.durability().kind).toBe('Degraded');
    follower.steady();
    expect(follower.durability().kind).toBe('Durable');
  });

  it('error: a non-signer cannot seal, and a follower refuses a block whose seal was not made by a signer', async () => {
    const producer = service(newDatadir(), 0, true);
    const outsider = ChainService.open({ datadir: newDatadir(), genesis, batch: 0, signerKey: hexToBytes(accounts[1].privateKey) });
    open.push(outsider);
    await expect(outsider.produce({ txs: [], timestamp: 10n })).rejects.toMatchObject({ code: 'NODE_CANNOT_SEAL' });
    // The signer's block, sealed again by the outsider's key.
    const head = (await producer.produce({ txs: [], timestamp: 10n })).head;
    const block = decodeBlock(rawBlock(producer.store, head.hash) as Uint8Array);
    delete block.header.rlp;
    const clique = new CliqueEngine({ config: genesis.config.clique as NonNullable<typeof genesis.config.clique> });
    const forged = encodeBlock({ ...block, header: clique.seal(block.header, hexToBytes(accounts[1].privateKey)) });
    const follower = service(newDatadir(), 0, false);
    await expect(follower.importBlocks([forged])).rejects.toThrow(/unauthorized signer/);
    expect(follower.head().number).toBe(0n);
  });
});
