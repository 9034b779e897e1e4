/**
 * The dev chain's promise (decisions 0036 and 0048): a killed node loses no block it answered for. `xone run --dev`
 * commits with synchronous=OFF and no segment fsync; this kills a real node with SIGKILL after automine sends whose
 * WAL passed the node's settle size (so a checkpoint that synced nothing ran before the kill), starts it again on the
 * same datadir, and checks that every answered transaction is there and the chain goes on from it.
 */
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { devAccounts } from '../../core/node/dev/devChain.ts';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { rpc } from './support/rpcCall.ts';

const DEAD = '0x000000000000000000000000000000000000dead';
/** ~260 KB of WAL per one-transfer dev block: 60 blocks pass the node's 8 MiB settle size (node.ts, WAL_SETTLE_BYTES). */
const SENDS = 60;

let node: DevNode | undefined;
let datadir: string | undefined;
afterAll(async () => {
  await node?.stop();
  if (datadir) rmSync(datadir, { recursive: true, force: true });
});

async function send(url: string, from: string): Promise<string> {
  const r = await rpc(url, 'eth_sendTransaction', [{ from, to: DEAD, value: '0x1' }]);
  expect(r.error).toBeUndefined();
  return r.result as string;
}

describe('dev node: SIGKILL and restart on the same datadir', () => {
  it('behavior: every answered automine transaction survives the kill, and the restarted chain mines on from it', async () => {
    node = await startDevNode();
    datadir = node.datadir;
    const dbFile = join(datadir, 'chain.sqlite');
    const dbBytesAtStart = statSync(dbFile).size;
    const from = devAccounts(1)[0].address;
    expect((await rpc(node.url, 'evm_setAutomine', [true])).error).toBeUndefined();
    const hashes: string[] = [];
    for (let i = 0; i < SENDS; i++) hashes.push(await send(node.url, from));
    const head = (await rpc(node.url, 'eth_getBlockByNumber', ['latest', false])).result as { number: string; hash: string };
    const exited = new Promise((r) => node?.child.once('exit', r));
    node.child.kill('SIGKILL');
    await exited;
    // A checkpoint copied WAL pages into the database file before the kill.
    expect(statSync(dbFile).size).toBeGreaterThan(dbBytesAtStart);

    node = await startDevNode([], 60_000, {}, { datadir });
    // Automine replaces the interval mining a dev node starts with (its empty blocks would move the head meanwhile).
    expect((await rpc(node.url, 'evm_setAutomine', [true])).error).toBeUndefined();
    const again = (await rpc(node.url, 'eth_getBlockByNumber', [head.number, false])).result as { hash: string };
    expect(again.hash).toBe(head.hash);
    for (const hash of hashes) {
      const receipt = (await rpc(node.url, 'eth_getTransactionReceipt', [hash])).result as { status: string } | null;
      expect(receipt?.status, `receipt of ${hash}`).toBe('0x1');
    }
    expect(BigInt((await rpc(node.url, 'eth_getBalance', [DEAD, 'latest'])).result as string)).toBe(BigInt(SENDS));
    expect(Number((await rpc(node.url, 'eth_getTransactionCount', [from, 'latest'])).result)).toBe(SENDS);
    // The chain goes on: the next send is mined on the restored head.
    const latest = Number((await rpc(node.url, 'eth_blockNumber')).result);
    expect(latest).toBeGreaterThanOrEqual(Number(head.number));
    const next = await send(node.url, from);
    const receipt = (await rpc(node.url, 'eth_getTransactionReceipt', [next])).result as { blockNumber: string; status: string };
    expect(receipt).toMatchObject({ status: '0x1', blockNumber: `0x${(latest + 1).toString(16)}` });
  }, 180_000);
});
