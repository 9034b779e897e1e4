/**
 * The dev chain's start-up warm-up (ChainService.warmUp): a throwaway block is built, executed, rooted and sealed on
 * the chain thread, then dropped before anything is written. Head, state and store stay as they were, and the next
 * produced block is the one a verifying follower imports.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseGenesis } from '../../core/chain/genesis/index.ts';
import { signTransaction } from '../../core/chain/transaction/index.ts';
import { ChainService } from '../../core/chainService/chainService.ts';
import { devAccounts, devGenesisJson } from '../../core/node/dev/devChain.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { rawBlock } from '../../core/store/read/rawBlock.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';

const accounts = devAccounts(2);
const genesis = parseGenesis(devGenesisJson(accounts));
const signerKey = hexToBytes(accounts[0].privateKey);
const newDatadir = datadirFactory();
const closers: (() => void)[] = [];
afterEach(() => {
  while (closers.length) closers.pop()?.();
});

function service(withSigner: boolean): ChainService {
  const s = ChainService.open({ datadir: newDatadir(), genesis, batch: 0, ...(withSigner ? { signerKey } : {}) });
  closers.push(() => s.close());
  return s;
}

describe('chain thread warm-up', () => {
  it('default: drops its block; the head, the store and the next produced block are as without it', async () => {
    const producer = service(true);
    const before = producer.head();
    const { commits, blocks } = producer.store.stats;
    expect(await producer.warmUp()).toEqual({ transactions: 1 });
    expect(await producer.warmUp()).toEqual({ transactions: 1 });
    expect(bytesToHex(producer.head().hash)).toBe(bytesToHex(before.hash));
    expect(producer.store.getCanonicalHash(1)).toBeUndefined();
    expect(producer.store.stats).toMatchObject({ commits, blocks });

    const transfer = signTransaction(
      {
        type: 2,
        chainId: 1337n,
        nonce: 0n,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1n,
        gasLimit: 21_000n,
        to: hexToBytes(accounts[1].address),
        value: 5n,
        data: new Uint8Array(0),
      },
      hexToBytes(accounts[1].privateKey),
    );
    const { head } = await producer.produce({ txs: [{ raw: transfer.raw, sender: hexToBytes(accounts[1].address) }], timestamp: 10n });
    expect(head.txHashes.length).toBe(1);
    const follower = service(false);
    const [imported] = await follower.importBlocks([rawBlock(producer.store, head.hash) as Uint8Array]);
    expect(bytesToHex(imported.hash)).toBe(bytesToHex(head.hash));
    expect(bytesToHex(follower.head().header.stateRoot)).toBe(bytesToHex(producer.head().header.stateRoot));
  });

  it('edge: a node without a signer has nothing to warm', async () => {
    const follower = service(false);
    expect(await follower.warmUp()).toEqual({ transactions: 0 });
    expect(follower.head().number).toBe(0n);
  });
});
