/** A signed 1-wei transfer between the first two dev accounts, sent to a dev node (for tests that need a mined tx). */
import { Wallet } from 'ethers';
import { devAccounts } from '../../../core/node/dev/devChain.ts';
import { rpc, type RpcReply } from './rpcCall.ts';

const sender = new Wallet(devAccounts(1)[0].privateKey);

/** eth_sendRawTransaction of a type-2 transfer with the given nonce on chain 1337. */
export async function sendDevTransfer(url: string, nonce: number): Promise<RpcReply> {
  const raw = await sender.signTransaction({
    type: 2,
    chainId: 1337,
    nonce,
    to: devAccounts(2)[1].address,
    value: 1n,
    gasLimit: 21_000,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 10n ** 9n,
  });
  return rpc(url, 'eth_sendRawTransaction', [raw]);
}
