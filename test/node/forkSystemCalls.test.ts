/**
 * The new forks' system calls and gas rules in every path that executes on the dev node (Osaka): the EIP-2935
 * block-hash history that a block's pre-transaction system call writes is what a mined transaction, its trace
 * (debug_traceTransaction / debug_traceBlockByNumber re-execute it) and an eth_simulateV1 block all read; calls are
 * not transactions, so EIP-7825's cap does not bound eth_call (geth #32641), while eth_estimateGas stays under it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { rpc } from './support/rpcCall.ts';

const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const READER = '0xc0de000000000000000000000000000000002935';
/** STATICCALL the EIP-2935 contract with NUMBER-1 and return its 32-byte answer (the parent block's hash). */
const PARENT_HASH_READER = '0x' + '600143035f52' + '60205f60205f' + '730000f90827f1c53a10cb7a02335b175320002935' + '5afa50' + '60205ff3';
/**
 * PUSH0; PUSH3 0x35b5e0; MSTORE; STOP: one store that grows memory to 110,000 words, ~24M gas (3w + w^2/512), more
 * than the EIP-7825 cap yet finite. Not an endless loop: 16.7M gas of JUMPs outlasts the 5 s --rpc.evmtimeout on a
 * loaded host, and one memory expansion costs the same gas at once.
 */
const HUNGRY = '0xc0de000000000000000000000000000000001000';
const HUNGRY_CODE = '0x5f6235b5e05200';

let node: DevNode;
beforeAll(async () => {
  node = await startDevNode();
}, 90_000);
afterAll(async () => {
  await node?.stop();
});

/** One call, retried while the RPC pool sheds load on a busy host. */
async function call(method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  let r = await rpc(node.url, method, params);
  for (let i = 0; i < 50 && r.error?.code === -32005; i++) {
    await new Promise((res) => setTimeout(res, 100));
    r = await rpc(node.url, method, params);
  }
  return r;
}

async function blockHash(n: bigint): Promise<string> {
  const b = (await call('eth_getBlockByNumber', ['0x' + n.toString(16), false])).result as { hash: string };
  return b.hash;
}

describe('fork system calls and gas rules across execution, tracing and simulation (Osaka dev chain)', () => {
  it('default: a mined transaction, its traces and a simulated block read the parent hash from EIP-2935', { timeout: 60_000 }, async () => {
    expect((await call('anvil_setCode', [READER, PARENT_HASH_READER])).error).toBeUndefined();
    expect((await call('anvil_setCode', [HUNGRY, HUNGRY_CODE])).error).toBeUndefined();
    const sent = await call('eth_sendTransaction', [{ from: DEV0, to: READER, gas: '0x30000' }]);
    expect(sent.error).toBeUndefined();
    let receipt = (await call('eth_getTransactionReceipt', [sent.result])).result as { blockNumber: string; status: string } | null;
    for (let i = 0; i < 100 && receipt === null; i++) {
      await new Promise((res) => setTimeout(res, 100));
      receipt = (await call('eth_getTransactionReceipt', [sent.result])).result as typeof receipt;
    }
    if (receipt === null) throw new Error('transaction not mined');
    expect(receipt.status).toBe('0x1');
    const mined = BigInt(receipt.blockNumber);
    const parent = await blockHash(mined - 1n);

    const traced = (await call('debug_traceTransaction', [sent.result, { tracer: 'callTracer' }])).result as {
      output: string;
      calls: { to: string; output: string }[];
    };
    expect(traced.output).toBe(parent);
    expect(traced.calls[0]?.to).toBe('0x0000f90827f1c53a10cb7a02335b175320002935');
    const block = (await call('debug_traceBlockByNumber', [receipt.blockNumber, { tracer: 'callTracer' }])).result as {
      result: { output: string };
    }[];
    expect(block[0]?.result.output).toBe(parent);

    const head = (await call('eth_getBlockByNumber', ['latest', false])).result as { hash: string; number: string };
    const sim = await call('eth_simulateV1', [{ blockStateCalls: [{ calls: [{ from: DEV0, to: READER }] }] }, head.number]);
    expect(sim.error).toBeUndefined();
    const [simBlock] = sim.result as { parentHash: string; requestsHash: string; calls: { status: string; returnData: string }[] }[];
    expect(simBlock.parentHash).toBe(head.hash);
    expect(simBlock.calls[0]).toMatchObject({ status: '0x1', returnData: head.hash });
    // Prague: no deposits, withdrawal or consolidation requests, so sha256 of nothing.
    expect(simBlock.requestsHash).toBe('0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');

    const atHead = await call('eth_call', [{ to: READER }, head.number]);
    expect(atHead.result).toBe(await blockHash(BigInt(head.number) - 1n));
  });

  it(
    'behavior: eth_call and debug_traceCall run past the EIP-7825 cap; eth_estimateGas is bounded by it',
    { timeout: 60_000 },
    async () => {
      const big = await call('eth_call', [{ to: READER, gas: '0x2faf080' }, 'latest']);
      expect(big.error, JSON.stringify(big)).toBeUndefined();
      const traced = await call('debug_traceCall', [{ to: READER, gas: '0x2faf080' }, 'latest', { tracer: 'callTracer' }]);
      expect(traced.error, JSON.stringify(traced.error)).toBeUndefined();
      expect((traced.result as { gas: string }).gas).toBe('0x2faf080');
      // ~24M gas: a call may spend it, an estimate may not (nor may a transaction).
      const spent = await call('eth_call', [{ from: DEV0, to: HUNGRY, gas: '0x2faf080' }, 'latest']);
      expect(spent, JSON.stringify(spent)).toMatchObject({ result: '0x' });
      const hungry = await call('eth_estimateGas', [{ from: DEV0, to: HUNGRY }]);
      expect(hungry.error?.message, JSON.stringify(hungry)).toMatch(/^gas required exceeds allowance \(16777216\)/);
    },
  );
});
