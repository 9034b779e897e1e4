/**
 * EIP-7702 from a real client: viem's `signAuthorization` and a type-4 transaction against `xone run --dev` (Osaka),
 * unchanged viem code as a dapp would write it. The delegate's code runs in the EOA's own storage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, createPublicClient, createWalletClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
// viem's own chain for a local dev node (id 1337), as a dapp developer picks it; the transports name the node's URL.
import { localhost as chain } from 'viem/chains';
import { startDevNode, type DevNode } from '../support/devNode.ts';

/** Dev accounts 6 (the EOA that delegates) and 7 (a sponsor that pays for it). */
const EOA_KEY = '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e';
const SPONSOR_KEY = '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356';
/** Runtime code: SSTORE(0, CALLVALUE + 1); STOP. Initcode copies the 7 bytes after its 12 bytes and returns them. */
const RUNTIME = '0x346001016000' + '5500';
const INITCODE = concat(['0x6008600c60003960086000f3', RUNTIME as Hex]);

let node: DevNode;
beforeAll(async () => {
  node = await startDevNode(['--period', '1']);
}, 90_000);
afterAll(async () => {
  await node?.stop();
});

describe('EIP-7702 with viem against the dev node (Osaka)', () => {
  it('default: a sponsored set-code transaction delegates the EOA, and its code runs on the EOA', { timeout: 60_000 }, async () => {
    const client = createPublicClient({ chain, transport: http(node.url), pollingInterval: 200 });
    const eoa = privateKeyToAccount(EOA_KEY);
    const sponsor = createWalletClient({ account: privateKeyToAccount(SPONSOR_KEY), chain, transport: http(node.url) });
    const deploy = await sponsor.sendTransaction({ data: INITCODE });
    const delegate = (await client.waitForTransactionReceipt({ hash: deploy })).contractAddress as Hex;
    expect(await client.getCode({ address: delegate })).toBe(RUNTIME);

    const eoaWallet = createWalletClient({ account: eoa, chain, transport: http(node.url) });
    const authorization = await eoaWallet.signAuthorization({ contractAddress: delegate });
    const hash = await sponsor.sendTransaction({ to: eoa.address, authorizationList: [authorization], value: 5n });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(receipt.type).toBe('eip7702');
    // The designator 0xef0100 || delegate, and the delegate's SSTORE landed in the EOA's storage.
    expect(await client.getCode({ address: eoa.address })).toBe(concat(['0xef0100', delegate]).toLowerCase());
    expect(await client.getStorageAt({ address: eoa.address, slot: '0x0' })).toBe(`0x${'6'.padStart(64, '0')}`);
    expect(await client.getTransactionCount({ address: eoa.address })).toBe(1);
    const tx = await client.getTransaction({ hash });
    expect(tx.authorizationList?.[0]?.address.toLowerCase()).toBe(delegate.toLowerCase());
  });

  it(
    'behavior: the EOA executes its own authorization (executor self), then clears it with the zero address',
    { timeout: 60_000 },
    async () => {
      const client = createPublicClient({ chain, transport: http(node.url), pollingInterval: 200 });
      const eoa = privateKeyToAccount(EOA_KEY);
      const wallet = createWalletClient({ account: eoa, chain, transport: http(node.url) });
      const current = (await client.getCode({ address: eoa.address })) as Hex;
      const delegate = `0x${current.slice(8)}` as Hex;
      const again = await wallet.signAuthorization({ contractAddress: delegate, executor: 'self' });
      const hash = await wallet.sendTransaction({ to: eoa.address, authorizationList: [again], value: 1n });
      expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
      expect(await client.getStorageAt({ address: eoa.address, slot: '0x0' })).toBe(`0x${'2'.padStart(64, '0')}`);
      const clear = await wallet.signAuthorization({ contractAddress: '0x0000000000000000000000000000000000000000', executor: 'self' });
      const cleared = await wallet.sendTransaction({ to: eoa.address, authorizationList: [clear] });
      expect((await client.waitForTransactionReceipt({ hash: cleared })).status).toBe('success');
      expect(await client.getCode({ address: eoa.address })).toBeUndefined();
    },
  );
});
