/** A real client library (viem) against `xone run --dev` over HTTP: the calls a dapp makes first. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseEther, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startDevNode, type DevNode } from '../support/devNode.ts';

const DEV_KEY_1 = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const chain = {
  id: 1337,
  name: 'xone-dev',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
} as const;

let node: DevNode;
beforeAll(async () => {
  node = await startDevNode(['--period', '1']);
}, 90_000);
afterAll(async () => {
  await node?.stop();
});

describe('viem against the dev node', () => {
  it('default: chain id, block number and a funded dev account', async () => {
    const client = createPublicClient({ chain, transport: http(node.url) });
    expect(await client.getChainId()).toBe(1337);
    expect(await client.getBalance({ address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' })).toBe(parseEther('10000'));
    expect(await client.getBlockNumber()).toBeGreaterThanOrEqual(0n);
  });

  it('behavior: an EIP-1559 and a legacy transfer are mined, with receipts and balances', async () => {
    const account = privateKeyToAccount(DEV_KEY_1);
    const wallet = createWalletClient({ account, chain, transport: http(node.url) });
    const client = createPublicClient({ chain, transport: http(node.url), pollingInterval: 200 });
    const before = await client.getBalance({ address: RECIPIENT });
    const hash1559 = await wallet.sendTransaction({ to: RECIPIENT, value: 1000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1') });
    const receipt1559 = await client.waitForTransactionReceipt({ hash: hash1559, timeout: 30_000 });
    expect(receipt1559.status).toBe('success');
    expect(receipt1559.type).toBe('eip1559');
    const hashLegacy = await wallet.sendTransaction({ to: RECIPIENT, value: 1n, gasPrice: parseGwei('5'), type: 'legacy' });
    const receiptLegacy = await client.waitForTransactionReceipt({ hash: hashLegacy, timeout: 30_000 });
    expect(receiptLegacy.status).toBe('success');
    expect(receiptLegacy.gasUsed).toBe(21000n);
    expect(await client.getBalance({ address: RECIPIENT })).toBe(before + 1001n);
    const tx = await client.getTransaction({ hash: hash1559 });
    expect(tx.from.toLowerCase()).toBe(account.address.toLowerCase());
    expect(await client.getTransactionCount({ address: account.address })).toBe(2);
  }, 60_000);

  it('behavior: estimateGas of a transfer is 21000 and fee history has base fees', async () => {
    const client = createPublicClient({ chain, transport: http(node.url) });
    expect(await client.estimateGas({ account: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', to: RECIPIENT, value: 1n })).toBe(21000n);
    const fees = await client.estimateFeesPerGas();
    expect(fees.maxFeePerGas).toBeGreaterThan(0n);
  });

  it('error: a transaction with a stale nonce is refused with geth\'s message', async () => {
    const account = privateKeyToAccount(DEV_KEY_1);
    const wallet = createWalletClient({ account, chain, transport: http(node.url) });
    await expect(wallet.sendTransaction({ to: RECIPIENT, value: 1n, nonce: 0, gas: 21000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: 1n })).rejects.toThrow(/nonce too low/);
  });
});
