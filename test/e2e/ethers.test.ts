/** A second real client library (ethers 6) against `xone run --dev`: the same dapp journey as viem, over HTTP and WebSocket. */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Contract,
  ContractFactory,
  HDNodeWallet,
  JsonRpcProvider,
  Mnemonic,
  NonceManager,
  WebSocketProvider,
  isError,
  type EventLog,
  type JsonRpcError,
  type JsonRpcPayload,
  type JsonRpcResult,
  type Log,
} from 'ethers';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { compileToken, INSUFFICIENT_BALANCE } from './fixtures/erc20.ts';

const DEV_MNEMONIC = Mnemonic.fromPhrase('test test test test test test test test test test test junk');
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const devWallet = (index: number): HDNodeWallet => HDNodeWallet.fromMnemonic(DEV_MNEMONIC, `m/44'/60'/0'/0/${index}`);
const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing in ${ms} ms`)), ms))]);

/**
 * The node sheds expensive calls (eth_call, eth_estimateGas, ...) with EIP-1474's -32005 right after an event-loop stall,
 * which a loaded test host produces. viem retries -32005 by itself; ethers does not, so this provider retries exactly
 * that code (a few times, backing off), as a production ethers user behind a rate-limited endpoint would.
 */
class RetryOnLimitProvider extends JsonRpcProvider {
  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    for (let attempt = 0; ; attempt++) {
      // JsonRpcProvider declares results only, but error answers come back through the same array.
      const answers = await super._send(payload);
      const limited = answers.some((a) => (a as unknown as Partial<JsonRpcError>).error?.code === -32005);
      if (!limited || attempt >= 5) return answers;
      await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
    }
  }
}

let node: DevNode;
let provider: JsonRpcProvider;
const token = compileToken();
const deployer = devWallet(5);
const holder = devWallet(6).address;
let tokenAddress: string;

beforeAll(async () => {
  node = await startDevNode(['--period', '1']);
  provider = new RetryOnLimitProvider(node.url, 1337, { staticNetwork: true, pollingInterval: 200 });
  const factory = new ContractFactory(token.abi as never, token.bytecode, deployer.connect(provider));
  const contract = await factory.deploy('Ethers Token', 'ETK', 1_000_000n);
  await contract.waitForDeployment();
  tokenAddress = await contract.getAddress();
}, 90_000);
afterAll(async () => {
  if (process.env.XONE_E2E_LOG) writeFileSync(process.env.XONE_E2E_LOG, node?.output() ?? '');
  provider?.destroy();
  await node?.stop();
});

describe('ethers against the dev node', () => {
  it('default: chain id, a funded dev account and the deployed token', async () => {
    expect((await provider.getNetwork()).chainId).toBe(1337n);
    expect(await provider.getBalance(devWallet(0).address)).toBeGreaterThan(0n);
    const erc20 = new Contract(tokenAddress, token.abi as never, provider);
    expect(await erc20.getFunction('symbol')()).toBe('ETK');
    expect(await erc20.getFunction('balanceOf')(deployer.address)).toBe(1_000_000n);
  });

  it('behavior: an EIP-1559 and a legacy send are mined with receipts', async () => {
    const wallet = devWallet(7).connect(provider);
    const before = await provider.getBalance(RECIPIENT);
    const tx1559 = await wallet.sendTransaction({ to: RECIPIENT, value: 1000n });
    expect(tx1559.type).toBe(2);
    const r1559 = await tx1559.wait(1, 30_000);
    expect(r1559?.status).toBe(1);
    const legacy = await wallet.sendTransaction({
      to: RECIPIENT,
      value: 1n,
      type: 0,
      gasPrice: (await provider.getFeeData()).gasPrice ?? 1n,
    });
    const rLegacy = await legacy.wait(1, 30_000);
    expect(rLegacy?.status).toBe(1);
    expect(rLegacy?.type).toBe(0);
    expect(rLegacy?.gasUsed).toBe(21_000n);
    expect(await provider.getBalance(RECIPIENT)).toBe(before + 1001n);
  }, 60_000);

  it('behavior: a transfer is estimated, mined, found by getLogs and seen by a WebSocket contract.on', async () => {
    const ws = new WebSocketProvider(node.wsUrl, 1337, { staticNetwork: true });
    try {
      const watched = new Contract(tokenAddress, token.abi as never, ws);
      const seen = new Promise<string>((resolve) => {
        // ethers passes decoded args then the event payload, or only the payload for a topic filter: the payload is last.
        void watched.on(watched.filters.Transfer(null, holder), (...args: unknown[]) =>
          resolve((args[args.length - 1] as { log: Log }).log.transactionHash),
        );
      });
      // Let eth_subscribe complete before the transfer can be mined.
      await new Promise((r) => setTimeout(r, 300));
      const erc20 = new Contract(tokenAddress, token.abi as never, deployer.connect(provider));
      const gas = await erc20.getFunction('transfer').estimateGas(holder, 40n);
      expect(gas).toBeGreaterThan(21_000n);
      expect(gas).toBeLessThan(100_000n);
      const sent = await erc20.getFunction('transfer')(holder, 40n);
      const receipt = await sent.wait(1, 30_000);
      expect(receipt.status).toBe(1);
      expect(await erc20.getFunction('balanceOf')(holder)).toBe(40n);
      const logs = await erc20.queryFilter(erc20.filters.Transfer(null, holder), 0, 'latest');
      expect(logs).toHaveLength(1);
      expect(logs[0].transactionHash).toBe(sent.hash);
      expect((logs[0] as EventLog).args[2]).toBe(40n);
      const raw = await provider.getLogs({ address: tokenAddress, fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber });
      expect(raw.map((l) => l.transactionHash)).toContain(sent.hash);
      expect(await withTimeout(seen, 15_000, 'WebSocket Transfer event')).toBe(sent.hash);
      await watched.removeAllListeners();
    } finally {
      await ws.destroy();
    }
  }, 60_000);

  it('error: a transfer beyond the balance reverts and ethers decodes the reason', async () => {
    const erc20 = new Contract(tokenAddress, token.abi as never, devWallet(6).connect(provider));
    const err = await erc20
      .getFunction('transfer')
      .staticCall(deployer.address, 10n ** 30n)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isError(err, 'CALL_EXCEPTION')).toBe(true);
    expect((err as { reason: string }).reason).toBe(INSUFFICIENT_BALANCE);
    const gasErr = await erc20
      .getFunction('transfer')
      .estimateGas(deployer.address, 10n ** 30n)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((gasErr as { reason: string }).reason).toBe(INSUFFICIENT_BALANCE);
  });

  it('behavior: fees from eth_feeHistory pay for an EIP-1559 send', async () => {
    const history = (await provider.send('eth_feeHistory', ['0x4', 'latest', [50]])) as { baseFeePerGas: string[]; reward?: string[][] };
    const nextBase = BigInt(history.baseFeePerGas[history.baseFeePerGas.length - 1]);
    expect(nextBase).toBeGreaterThan(0n);
    const tip = (history.reward ?? []).map((r) => BigInt(r[0])).reduce((max, r) => (r > max ? r : max), 1n);
    const wallet = devWallet(7).connect(provider);
    const sent = await wallet.sendTransaction({ to: RECIPIENT, value: 1n, maxFeePerGas: nextBase * 2n + tip, maxPriorityFeePerGas: tip });
    expect((await sent.wait(1, 30_000))?.status).toBe(1);
    const feeData = await provider.getFeeData();
    expect(feeData.maxFeePerGas).toBeGreaterThan(0n);
  }, 40_000);

  it('behavior: 100 concurrent sends through a NonceManager get nonces 0..99 and all are mined', async () => {
    const signer = new NonceManager(devWallet(8).connect(provider));
    const fee = await provider.getFeeData();
    const sent = await Promise.all(
      Array.from({ length: 100 }, () =>
        signer.sendTransaction({
          to: RECIPIENT,
          value: 1n,
          gasLimit: 21_000n,
          maxFeePerGas: fee.maxFeePerGas,
          maxPriorityFeePerGas: fee.maxPriorityFeePerGas,
        }),
      ),
    );
    expect([...sent.map((t) => t.nonce)].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    const receipts = await Promise.all(sent.map((t) => t.wait(1, 40_000)));
    expect(receipts.every((r) => r?.status === 1)).toBe(true);
    expect(await provider.getTransactionCount(devWallet(8).address)).toBe(100);
  }, 60_000);
});
