import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { benchConfig, buildChain, type BuiltChain } from '../../core/bench/exec/buildChain.ts';
import { decodeBlock, encodeBlock, transactionsRoot, type Block } from '../../core/chain/block/index.ts';
import type { GenesisAlloc } from '../../core/chain/genesis/index.ts';
import type { Header } from '../../core/chain/header/index.ts';
import { signTransaction, type Transaction } from '../../core/chain/transaction/index.ts';
import { testingAddress, testingPrivateKey } from '../../core/chain/transaction/testing.ts';
import { BlockInvalidError } from '../../core/exec/errors.ts';
import { BlockImporter } from '../../core/exec/import/blockImporter.ts';
import { keyOf } from '../../core/state/keys.ts';
import type { AllocAccount } from '../../core/state/alloc.ts';
import { STATE_MIGRATIONS } from '../../core/state/store/migrations.ts';
import { ChainStore } from '../../core/store/index.ts';
import { connectionOf } from '../../core/store/connection.ts';

const chainId = 2040n;
const config = benchConfig(chainId);
const ETH = 10n ** 18n;
const alloc: Array<[Uint8Array, AllocAccount]> = [0, 1, 2].map((i) => [testingAddress(i), { balance: ETH }]);

function transfer(i: number, fields: { nonce?: bigint; value?: bigint } = {}): Transaction {
  return signTransaction(
    {
      type: 2,
      chainId,
      nonce: fields.nonce ?? 0n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
      gasLimit: 21000n,
      to: testingAddress(100 + i),
      value: fields.value ?? 1000n,
      data: new Uint8Array(0),
    },
    testingPrivateKey(i),
  );
}

let chain: BuiltChain;
let block: Block;

beforeAll(async () => {
  chain = await buildChain(config, alloc, [[0, 1, 2].map((i) => transfer(i))]);
  block = decodeBlock(chain.blocks[0] as Uint8Array);
});

function genesisAlloc(): GenesisAlloc {
  return new Map(
    alloc.map(([address, a]) => [keyOf(address), { address, nonce: 0n, balance: a.balance, code: new Uint8Array(0), storage: new Map() }]),
  );
}

function digest(store: ChainStore): string {
  const h = createHash('sha256');
  for (const { name } of connectionOf(store).prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
    name: string;
  }[]) {
    for (const row of connectionOf(store).prepare(`SELECT * FROM "${name}"`).all())
      h.update(name + JSON.stringify(row, (_k, v: unknown) => (v instanceof Uint8Array ? keyOf(v) : v)));
  }
  return h.digest('hex');
}

/** Imports `bad` on a fresh datadir and returns the error; checks the store is unchanged and the good block still imports. */
async function rejectReason(bad: Block): Promise<BlockInvalidError> {
  const store = ChainStore.open({ datadir: mkdtempSync(join(tmpdir(), 'xone-invalid-')), batch: 0 }, { migrations: STATE_MIGRATIONS });
  try {
    const importer = BlockImporter.open(store, { header: chain.genesisHeader, alloc: genesisAlloc() }, { config });
    const before = digest(store);
    const err = await importer.importRlp(encodeBlock(bad)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BlockInvalidError);
    expect(digest(store)).toBe(before);
    await importer.importRlp(chain.blocks[0] as Uint8Array);
    expect(importer.headInfo.header.number).toBe(1n);
    return err as BlockInvalidError;
  } finally {
    store.close();
  }
}

const withHeader = (changes: Partial<Header>): Block => ({ ...block, header: { ...block.header, ...changes, rlp: undefined } });
const withTxs = (txs: Transaction[]): Block => ({ ...withHeader({ transactionsRoot: transactionsRoot(txs) }), transactions: txs });
const hex = (b: Uint8Array): string => `0x${keyOf(b)}`;

describe('invalid blocks are refused with the field and both values, leaving the store as it was', () => {
  it('error: state root', async () => {
    const wrong = new Uint8Array(32).fill(7);
    const err = await rejectReason(withHeader({ stateRoot: wrong }));
    expect(err.code).toBe('BLOCK_BAD_STATE_ROOT');
    expect(err.message).toBe(`invalid block: stateRoot: expected ${hex(block.header.stateRoot)}, got ${hex(wrong)}`);
  });

  it('error: receipts root', async () => {
    const wrong = new Uint8Array(32).fill(8);
    const err = await rejectReason(withHeader({ receiptsRoot: wrong }));
    expect(err.code).toBe('BLOCK_BAD_RECEIPTS_ROOT');
    expect(err.message).toBe(`invalid block: receiptsRoot: expected ${hex(block.header.receiptsRoot)}, got ${hex(wrong)}`);
  });

  it('error: gas used', async () => {
    const err = await rejectReason(withHeader({ gasUsed: 63001n }));
    expect(err.message).toBe('invalid block: gasUsed: expected 63000, got 63001');
  });

  it('error: base fee', async () => {
    const fee = block.header.baseFeePerGas as bigint;
    const err = await rejectReason(withHeader({ baseFeePerGas: fee + 1n }));
    expect(err.message).toBe(`invalid block: baseFeePerGas: expected ${fee}, got ${fee + 1n}`);
  });

  it('error: timestamp not after the parent', async () => {
    const err = await rejectReason(withHeader({ timestamp: 0n }));
    expect(err.message).toBe('invalid block: timestamp: expected > 0, got 0');
  });

  it('error: transaction with a bad nonce', async () => {
    const err = await rejectReason(withTxs([transfer(0, { nonce: 5n }), ...block.transactions.slice(1)]));
    expect(err.code).toBe('BLOCK_BAD_TX');
    expect(err.message).toMatch(
      /transaction 0 \(0x[0-9a-f]{64}\): invalid transaction: nonce too high: address 0x[0-9a-fA-F]{40}, tx: 5 state: 0/,
    );
    expect(err.meta).toMatchObject({ field: 'nonce', expected: '0', actual: '5', txIndex: 0 });
  });

  it('error: transaction from a sender without enough funds', async () => {
    const err = await rejectReason(withTxs([...block.transactions.slice(0, 2), transfer(2, { value: 2n * ETH })]));
    expect(err.code).toBe('BLOCK_BAD_TX');
    expect(err.message).toMatch(
      /transaction 2 .* insufficient funds for gas \* price \+ value: address 0x[0-9a-fA-F]{40} have 1000000000000000000 want 2000210000000000000/,
    );
    expect(err.meta).toMatchObject({ field: 'balance', actual: ETH.toString(), txIndex: 2 });
  });
});
