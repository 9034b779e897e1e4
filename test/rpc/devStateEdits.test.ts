/**
 * anvil_setBalance / setNonce / setCode / setStorageAt (and hardhat_ aliases) on a real `xone run --dev`, driven by
 * viem's test actions: each edit is visible at 'latest' when the call returns, and the head block's state root
 * commits to it (an eth_getProof of the edited account verifies against the header's stateRoot).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createTestClient, createWalletClient, http, type Hex, type PublicClient, type TestClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { keccak256 } from '../../core/primitives/keccak.ts';
import { hexToBytes } from '../../core/primitives/hex.ts';
import { decodeAccount } from '../../core/state/account.ts';
import { verifyProof } from '../../core/trie/index.ts';
import { startDevNode, type DevNode } from '../support/devNode.ts';

const chain = {
  id: 1337,
  name: 'xone dev',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
} as const;
/** A fixed key no dev account uses: its address starts with no balance, nonce or code. */
const FRESH = privateKeyToAccount(`0x${'42'.repeat(32)}`);

let node: DevNode;
let pub: PublicClient;
let test: TestClient<'anvil'>;

async function rpc(method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const res = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}

/** The account as the head block's state root commits to it (undefined = absent), read through a verified proof. */
async function provenAccount(address: Hex): Promise<ReturnType<typeof decodeAccount> | undefined> {
  const block = await pub.getBlock({ blockTag: 'latest' });
  const proof = await pub.getProof({ address, storageKeys: [], blockNumber: block.number });
  const leaf = verifyProof(
    hexToBytes(block.stateRoot),
    keccak256(hexToBytes(address)),
    proof.accountProof.map((p) => hexToBytes(p)),
  );
  return leaf === undefined ? undefined : decodeAccount(leaf);
}

beforeAll(async () => {
  node = await startDevNode();
  const transport = http(node.url);
  pub = createPublicClient({ chain, transport, cacheTime: 0 });
  test = createTestClient({ chain, mode: 'anvil', transport });
}, 90_000);
afterAll(async () => {
  await node?.stop();
});

describe('dev state edits', () => {
  it('default: setBalance is visible at latest on return, sealed into the head block under its state root', async () => {
    const before = await pub.getBlockNumber();
    await test.setBalance({ address: FRESH.address, value: 5n * 10n ** 18n + 7n });
    expect(await pub.getBalance({ address: FRESH.address })).toBe(5n * 10n ** 18n + 7n);
    expect(await pub.getBlockNumber()).toBeGreaterThan(before);
    expect((await provenAccount(FRESH.address))?.balance).toBe(5n * 10n ** 18n + 7n);
    // The hardhat_ alias is the same method.
    expect((await rpc('hardhat_setBalance', [FRESH.address, '0xde0b6b3a7640000'])).result).toBe(true);
    expect(await pub.getBalance({ address: FRESH.address })).toBe(10n ** 18n);
  }, 30_000);

  it('behavior: the pool sees the new balance: the funded fresh account pays for a transfer that gets mined', async () => {
    await test.setBalance({ address: FRESH.address, value: 10n ** 18n });
    const wallet = createWalletClient({ chain, transport: http(node.url), account: FRESH });
    const hash = await wallet.sendTransaction({ to: `0x${'77'.repeat(20)}`, value: 1000n });
    const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 30_000, pollingInterval: 100 });
    expect(receipt.status).toBe('success');
    expect(await pub.getBalance({ address: `0x${'77'.repeat(20)}` })).toBe(1000n);
  }, 40_000);

  it('behavior: setNonce, setCode and setStorageAt land in the proven state; eth_call runs the new code', async () => {
    const target = `0x${'ab'.repeat(20)}` as const;
    await test.setNonce({ address: target, nonce: 9 });
    expect(await pub.getTransactionCount({ address: target })).toBe(9);
    // Runtime code: return storage slot 1 as a 32-byte word (PUSH1 1 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN).
    const code = '0x60015460005260206000f3';
    await test.setCode({ address: target, bytecode: code });
    expect(await pub.getCode({ address: target })).toBe(code);
    const word = `0x${'00'.repeat(31)}2a` as const;
    await test.setStorageAt({ address: target, index: 1, value: word });
    expect(await pub.getStorageAt({ address: target, slot: '0x1' })).toBe(word);
    expect((await pub.call({ to: target })).data).toBe(word);
    const proven = await provenAccount(target);
    expect(proven?.nonce).toBe(9n);
    expect(proven?.codeHash).toEqual(keccak256(hexToBytes(code)));
  }, 30_000);

  it('behavior: evm_revert to a snapshot undoes an edit; setBalance to zero removes an empty account', async () => {
    const who = `0x${'cd'.repeat(20)}` as const;
    const id = await test.snapshot();
    await test.setBalance({ address: who, value: 123n });
    expect(await pub.getBalance({ address: who })).toBe(123n);
    await test.revert({ id });
    expect(await pub.getBalance({ address: who })).toBe(0n);
    await test.setBalance({ address: who, value: 5n });
    expect(await provenAccount(who)).toBeDefined();
    await test.setBalance({ address: who, value: 0n });
    expect(await provenAccount(who)).toBeUndefined();
  }, 30_000);

  it('error: bad params are -32602 and change nothing', async () => {
    const balance = await pub.getBalance({ address: FRESH.address });
    expect((await rpc('anvil_setBalance', ['0x1234', '0x1'])).error?.code).toBe(-32602);
    expect((await rpc('anvil_setStorageAt', [FRESH.address, '0x0', `0x${'00'.repeat(33)}`])).error?.code).toBe(-32602);
    expect((await rpc('anvil_setNonce', [FRESH.address, '0x10000000000000000'])).error?.code).toBe(-32602);
    expect(await pub.getBalance({ address: FRESH.address })).toBe(balance);
  }, 30_000);
});
