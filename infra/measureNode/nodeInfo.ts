import type { RpcCaller } from './rpcCall.ts';
import type { NodeInfo } from './types.ts';

/**
 * Asks the endpoint who it is and where its head is (web3_clientVersion, eth_blockNumber, eth_chainId). These calls
 * are not part of the measured series; a failure leaves the field null and says why.
 */
export async function readNodeInfo(caller: RpcCaller): Promise<NodeInfo> {
  const errors: string[] = [];
  const ask = async (method: string): Promise<unknown> => {
    const outcome = await caller.call(method, []);
    if (outcome.ok) return outcome.result;
    errors.push(`${method}: ${outcome.failure.reason}: ${outcome.failure.message}`);
    return null;
  };
  const clientVersion = await ask('web3_clientVersion');
  const head = await ask('eth_blockNumber');
  const chainId = await ask('eth_chainId');
  return {
    clientVersion: typeof clientVersion === 'string' ? clientVersion : null,
    head: quantity(head),
    chainId: quantity(chainId),
    errors,
  };
}

function quantity(v: unknown): number | null {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) return null;
  return Number.parseInt(v, 16);
}
