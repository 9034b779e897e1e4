/** A real client library (viem) against `xone run --dev` over HTTP: the calls a dapp makes first. */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  getAbiItem,
  http,
  parseEther,
  parseGwei,
  webSocket,
  type Abi,
  type AbiEvent,
  type Address,
  type BaseError,
  type Log,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { mnemonicToAccount, nonceManager, privateKeyToAccount } from 'viem/accounts';
// viem's own chain for a local dev node (id 1337), as a dapp developer picks it; the transports name the node's URL.
import { localhost as chain } from 'viem/chains';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { compileToken, INSUFFICIENT_BALANCE } from './fixtures/erc20.ts';

const DEV_KEY_1 = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
/** Dev account 4, used only by the concurrent-send test so its nonces start at 0. */
const DEV_KEY_4 = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a';
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';

let node: DevNode;
beforeAll(async () => {
  node = await startDevNode(['--period', '1']);
}, 90_000);
afterAll(async () => {
  if (process.env.XONE_E2E_LOG) writeFileSync(process.env.XONE_E2E_LOG, node?.output() ?? '');
  await node?.stop();
});

describe('viem against the dev node', () => {
  it('default: chain id, block number and a funded dev account', async () => {
    const client = createPublicClient({ chain, transport: http(node.url) });
    expect(await client.getChainId()).toBe(1337);
    expect(await client.getBalance({ address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' })).toBe(parseEther('10000'));
    // The block number viem reads is a block the node serves, and the head never moves back past it.
    const n = await client.getBlockNumber({ cacheTime: 0 });
    const block = await client.getBlock({ blockNumber: n });
    expect(block.number).toBe(n);
    if (n > 0n) expect((await client.getBlock({ blockNumber: n - 1n })).hash).toBe(block.parentHash);
    expect((await client.getBlock({ blockTag: 'latest' })).number >= n).toBe(true);
  });

  it('behavior: an EIP-1559 and a legacy transfer are mined, with receipts and balances', async () => {
    const account = privateKeyToAccount(DEV_KEY_1);
    const wallet = createWalletClient({ account, chain, transport: http(node.url) });
    const client = createPublicClient({ chain, transport: http(node.url), pollingInterval: 200 });
    const before = await client.getBalance({ address: RECIPIENT });
    const hash1559 = await wallet.sendTransaction({
      to: RECIPIENT,
      value: 1000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
    });
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

  it("error: a transaction with a stale nonce is refused with geth's message", async () => {
    const account = privateKeyToAccount(DEV_KEY_1);
    const wallet = createWalletClient({ account, chain, transport: http(node.url) });
    await expect(
      wallet.sendTransaction({ to: RECIPIENT, value: 1n, nonce: 0, gas: 21000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: 1n }),
    ).rejects.toThrow(/nonce too low/);
  });
});

describe('viem: an ERC-20 compiled with solc, over HTTP and WebSocket', () => {
  const token = compileToken();
  const abi = token.abi as Abi;
  const deployer = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 2 });
  const holder = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 3 }).address;
  let address: Address;
  const client = (): PublicClient => createPublicClient({ chain, transport: http(node.url), pollingInterval: 200 });
  const wallet = (): WalletClient<Transport, typeof chain, typeof deployer> =>
    createWalletClient({ account: deployer, chain, transport: http(node.url) });

  beforeAll(async () => {
    const hash = await wallet().deployContract({ abi, bytecode: token.bytecode, args: ['Test', 'TST', 1_000_000n] });
    const receipt = await client().waitForTransactionReceipt({ hash, timeout: 30_000 });
    expect(receipt.status).toBe('success');
    address = receipt.contractAddress as Address;
  }, 60_000);

  it('default: the deployed token reports its supply to the deployer', async () => {
    expect(await client().getCode({ address })).toMatch(/^0x6080/);
    expect(await client().readContract({ address, abi, functionName: 'symbol' })).toBe('TST');
    expect(await client().readContract({ address, abi, functionName: 'balanceOf', args: [deployer.address] })).toBe(1_000_000n);
  });

  it('behavior: a transfer moves balances, emits a log found by getLogs, and a WebSocket watcher sees it', async () => {
    const ws = createPublicClient({ chain, transport: webSocket(node.wsUrl) });
    const seen = new Promise<Log[]>((resolve) => {
      const unwatch = ws.watchContractEvent({
        address,
        abi,
        eventName: 'Transfer',
        args: { to: holder },
        onLogs: (logs) => (unwatch(), resolve(logs)),
      });
    });
    // Let the eth_subscribe round trip finish before the transfer can be mined.
    await new Promise((r) => setTimeout(r, 300));
    const gas = await client().estimateContractGas({ account: deployer, address, abi, functionName: 'transfer', args: [holder, 250n] });
    expect(gas).toBeGreaterThan(21_000n);
    expect(gas).toBeLessThan(100_000n);
    const hash = await wallet().writeContract({ address, abi, functionName: 'transfer', args: [holder, 250n] });
    const receipt = await client().waitForTransactionReceipt({ hash, timeout: 30_000 });
    expect(receipt.status).toBe('success');
    expect(receipt.gasUsed).toBeLessThanOrEqual(gas);
    expect(await client().readContract({ address, abi, functionName: 'balanceOf', args: [holder] })).toBe(250n);
    const transferEvent = getAbiItem({ abi, name: 'Transfer' }) as AbiEvent;
    const logs = await client().getLogs({ address, event: transferEvent, args: { to: holder }, fromBlock: 0n, toBlock: 'latest' });
    expect(logs).toHaveLength(1);
    expect(logs[0].transactionHash).toBe(hash);
    expect((logs[0].args as { value: bigint }).value).toBe(250n);
    const wsLogs = await Promise.race([
      seen,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no WebSocket log in 15 s')), 15_000)),
    ]);
    expect(wsLogs[0].transactionHash).toBe(hash);
    await ws.transport.getRpcClient().then((c) => c.close());
  }, 60_000);

  it('error: a transfer beyond the balance reverts and viem decodes the reason', async () => {
    const call = client().simulateContract({
      account: holder,
      address,
      abi,
      functionName: 'transfer',
      args: [deployer.address, 10n ** 30n],
    });
    const err = await call.then(
      () => undefined,
      (e: unknown) => e as BaseError,
    );
    const reverted = err?.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    expect(reverted?.reason).toBe(INSUFFICIENT_BALANCE);
    await expect(
      client().estimateContractGas({ account: holder, address, abi, functionName: 'transfer', args: [deployer.address, 10n ** 30n] }),
    ).rejects.toThrow(INSUFFICIENT_BALANCE);
  });

  it('behavior: fees from eth_feeHistory pay for an EIP-1559 send', async () => {
    const history = await client().getFeeHistory({ blockCount: 4, rewardPercentiles: [50] });
    expect(history.baseFeePerGas.length).toBe(history.gasUsedRatio.length + 1);
    const nextBase = history.baseFeePerGas[history.baseFeePerGas.length - 1];
    expect(nextBase).toBeGreaterThan(0n);
    const tip = (history.reward ?? []).reduce((max, r) => (r[0] > max ? r[0] : max), 1n);
    const hash = await wallet().sendTransaction({ to: RECIPIENT, value: 1n, maxFeePerGas: nextBase * 2n + tip, maxPriorityFeePerGas: tip });
    expect((await client().waitForTransactionReceipt({ hash, timeout: 30_000 })).status).toBe('success');
  }, 40_000);

  it('behavior: 100 concurrent sends from one account get nonces 0..99 and all are mined', async () => {
    const account = privateKeyToAccount(DEV_KEY_4, { nonceManager });
    const sender = createWalletClient({ account, chain, transport: http(node.url) });
    // Gas and fees are settled once, so each send is one signature and one eth_sendRawTransaction racing the others:
    // the nonce manager alone must keep 100 in-flight nonces distinct and gap-free.
    const fees = await client().estimateFeesPerGas();
    const hashes = await Promise.all(
      Array.from({ length: 100 }, () => sender.sendTransaction({ to: RECIPIENT, value: 1n, gas: 21_000n, ...fees })),
    );
    expect(new Set(hashes).size).toBe(100);
    const receipts = await Promise.all(hashes.map((hash) => client().waitForTransactionReceipt({ hash, timeout: 40_000 })));
    expect(receipts.every((r) => r.status === 'success')).toBe(true);
    const nonces = await Promise.all(hashes.map(async (hash) => (await client().getTransaction({ hash })).nonce));
    expect([...nonces].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(await client().getTransactionCount({ address: account.address })).toBe(100);
  }, 60_000);
});
