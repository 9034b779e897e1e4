/**
 * The node's RPC adapters (core/rpcBackend) over a real datadir holding the execution-apis London chain: the pool
 * view's geth refusals, pending nonces, and total difficulty in block objects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTransaction } from '../../core/chain/transaction/index.ts';
import { startFixtureNode, type FixtureNode } from '../../core/conformance/rpcCompat/index.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { conformancePath } from '../support/conformance.ts';

const DIR = conformancePath('execution-apis-london');
/** A key with no funds on the fixture chain. */
const POOR_KEY = hexToBytes(`0x${'11'.repeat(32)}`);
let node: FixtureNode;

beforeAll(async () => {
  node = await startFixtureNode({ testsDir: DIR });
});
afterAll(async () => {
  await node?.close();
});

async function call(method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const res = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}

const legacy = (fields: { chainId?: bigint; gasLimit?: bigint; value?: bigint; nonce?: bigint }) =>
  bytesToHex(
    signTransaction(
      {
        type: 0,
        chainId: 1337n,
        nonce: 0n,
        gasPrice: 2_000_000_000n,
        gasLimit: 21_000n,
        to: hexToBytes(`0x${'aa'.repeat(20)}`),
        value: 1n,
        data: new Uint8Array(0),
        ...fields,
      },
      POOR_KEY,
    ).raw,
  );

describe('node RPC adapters over a stored chain', () => {
  it('default: a block reports its total difficulty, the sum of the difficulties from genesis', async () => {
    const head = BigInt((await call('eth_blockNumber')).result as string);
    let sum = 0n;
    for (let n = 0n; n <= head; n++) {
      const block = (await call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).result as {
        difficulty: string;
        totalDifficulty: string;
      };
      sum += BigInt(block.difficulty);
      expect(BigInt(block.totalDifficulty)).toBe(sum);
    }
  });

  it('behavior: the pool refuses with geth messages as -32000: funds, chain id, block gas limit, bad encoding', async () => {
    const gasLimit = BigInt(((await call('eth_getBlockByNumber', ['latest', false])).result as { gasLimit: string }).gasLimit);
    const cases: [string, RegExp][] = [
      [legacy({}), /^insufficient funds for gas \* price \+ value: balance 0, tx cost \d+, overshot \d+$/],
      [legacy({ chainId: 1n }), /chain ?id/i],
      [legacy({ gasLimit: gasLimit + 1n }), /^exceeds block gas limit$/],
    ];
    for (const [raw, message] of cases) {
      const r = await call('eth_sendRawTransaction', [raw]);
      expect(r.error?.code).toBe(-32000);
      expect(r.error?.message).toMatch(message);
    }
    const garbage = await call('eth_sendRawTransaction', ['0xf8']);
    expect(garbage.error?.code).toBe(-32000);
    expect((await call('txpool_status')).result).toEqual({ pending: '0x0', queued: '0x0' });
  });
});
