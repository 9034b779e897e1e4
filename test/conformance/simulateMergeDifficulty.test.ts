/**
 * eth_simulateV1 on a chain whose genesis is the terminal proof-of-work block (difficulty 0x20000, merged from block
 * 1, as the execution-apis suites' chain): a simulated block is post-merge and has difficulty 0, as geth's simulator
 * sets (it copied the parent's 0x20000, and the block hash with it).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFixtureNode, type FixtureNode } from '../../core/conformance/rpcCompat/index.ts';
import { BLOCK_FORKS_AT_GENESIS } from '../support/genesisConfig.ts';

const GENESIS = {
  config: {
    chainId: 1337,
    ...BLOCK_FORKS_AT_GENESIS,
    mergeNetsplitBlock: 0,
    shanghaiTime: 0,
    cancunTime: 0,
    terminalTotalDifficulty: 131072,
  },
  timestamp: '0x0',
  extraData: '0x',
  gasLimit: '0x23f3e20',
  difficulty: '0x20000',
  alloc: {},
  baseFeePerGas: '0x3b9aca00',
};

let dir: string;
let node: FixtureNode;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'xone-sim-merge-'));
  writeFileSync(join(dir, 'genesis.json'), JSON.stringify(GENESIS));
  node = await startFixtureNode({ testsDir: dir });
}, 60_000);
afterAll(async () => {
  await node?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('a simulated block on top of the terminal block has difficulty 0', async () => {
  const res = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_simulateV1',
      params: [{ blockStateCalls: [{ calls: [] }, { calls: [] }] }, 'latest'],
    }),
  });
  const body = (await res.json()) as { result?: { difficulty: string; number: string }[]; error?: unknown };
  expect(body.error).toBeUndefined();
  expect(body.result?.map((b) => [b.number, b.difficulty])).toEqual([
    ['0x1', '0x0'],
    ['0x2', '0x0'],
  ]);
});
