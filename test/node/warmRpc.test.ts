/**
 * The dev node's main-thread warm-up (core/node/dev/warmRpc.ts) against a running `xone run --dev`: its rounds go
 * through the real HTTP handler (the transaction is refused only after its sender's account was read), and they leave
 * the chain, the pool and every account as they were. The node runs its own rounds at start; these are the same ones
 * again, so the node after start-up is checked too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devAccounts } from '../../core/node/dev/devChain.ts';
import { warmRpcPath } from '../../core/node/dev/warmRpc.ts';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { rpc } from './support/rpcCall.ts';

let node: DevNode;
beforeAll(async () => {
  node = await startDevNode();
});
afterAll(async () => {
  await node?.stop();
});

async function snapshot() {
  return {
    head: (await rpc(node.url, 'eth_getBlockByNumber', ['latest', false])).result,
    pool: (await rpc(node.url, 'txpool_status')).result,
    nonce: (await rpc(node.url, 'eth_getTransactionCount', [devAccounts(1)[0].address, 'latest'])).result,
  };
}

describe('dev node RPC warm-up', () => {
  it('default: the send is refused for insufficient funds, the receipt is null, the head is answered; nothing changes', async () => {
    // Automine: no block comes unless a transaction is added (the dev chain seals on its period otherwise).
    expect((await rpc(node.url, 'evm_setAutomine', [true])).error).toBeUndefined();
    const before = await snapshot();
    const { hostname, port } = new URL(node.url);
    const answers = (await warmRpcPath(hostname, Number(port), 1337n, () => false, 3)).map(
      (a) => JSON.parse(a) as { result?: unknown; error?: { code: number; message: string } },
    );
    expect(answers[0].error?.code).toBe(-32000);
    expect(answers[0].error?.message).toMatch(/^insufficient funds for gas \* price \+ value/);
    expect(answers[1]).toMatchObject({ result: null });
    expect(answers[2].result).toMatchObject({ hash: (before.head as { hash: string }).hash });
    expect(await snapshot()).toEqual(before);
    expect(before.pool).toEqual({ pending: '0x0', queued: '0x0' });
  });

  it('behavior: stops at once when asked (a closing node), and a closed port only ends it', async () => {
    const { hostname, port } = new URL(node.url);
    expect(await warmRpcPath(hostname, Number(port), 1337n, () => true)).toEqual([]);
    expect(await warmRpcPath('127.0.0.1', 1, 1337n, () => false, 2)).toEqual(['', '', '']);
  });
});
