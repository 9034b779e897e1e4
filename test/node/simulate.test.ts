/**
 * eth_simulateV1 on the real dev node (`xone run --dev`): blocks of calls with block and state overrides, state carried
 * from block to block, real headers (an empty block has the state root the chain's own next empty block has: the
 * Osaka system calls ran), traceTransfers (ERC-7528),
 * validation and the spec's error codes, movePrecompileToAddress, and viem's simulateCalls on top.
 */
import { createPublicClient, http, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { rpc } from './support/rpcCall.ts';

const C0 = '0xc000000000000000000000000000000000000000';
const C1 = '0xc100000000000000000000000000000000000000';
const C2 = '0xc200000000000000000000000000000000000000';
const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

let node: DevNode;
beforeAll(async () => {
  node = await startDevNode(['--period', '1']);
}, 90_000);
afterAll(async () => {
  await node?.stop();
});

const sim = async (payload: unknown, tag: unknown = 'latest') => {
  let r = await rpc(node.url, 'eth_simulateV1', [payload, tag]);
  for (let i = 0; i < 50 && r.error?.code === -32005; i++) {
    await new Promise((res) => setTimeout(res, 100));
    r = await rpc(node.url, 'eth_simulateV1', [payload, tag]);
  }
  return r as { result?: Record<string, unknown>[]; error?: { code: number; message: string } };
};

describe('eth_simulateV1', () => {
  it('default: two transfers in one block, with a balance override, on top of the head', async () => {
    const head = (await rpc(node.url, 'eth_getBlockByNumber', ['latest', false])).result as Record<string, string>;
    const r = await sim({
      blockStateCalls: [
        {
          stateOverrides: { [C0]: { balance: '0x3e8' } },
          calls: [
            { from: C0, to: C1, value: '0x3e8' },
            { from: C1, to: C2, value: '0x3e8' },
          ],
        },
      ],
    });
    expect(r.error).toBeUndefined();
    const [b] = r.result as Record<string, unknown>[];
    expect(BigInt(b.number as string)).toBeGreaterThan(BigInt(head.number));
    expect(BigInt(b.timestamp as string)).toBeGreaterThan(BigInt(head.timestamp));
    expect(b.baseFeePerGas).toBe('0x0');
    expect(b.gasUsed).toBe('0xa410');
    expect((b.transactions as string[]).length).toBe(2);
    expect(b.calls).toEqual([
      { returnData: '0x', logs: [], gasUsed: '0x5208', maxUsedGas: '0x5208', status: '0x1' },
      { returnData: '0x', logs: [], gasUsed: '0x5208', maxUsedGas: '0x5208', status: '0x1' },
    ]);
  });

  it("behavior: an empty block has the state root of the chain's own next empty block; blocks chain and carry state", async () => {
    const latest = (await rpc(node.url, 'eth_getBlockByNumber', ['latest', false])).result as Record<string, string>;
    const number = (n: bigint) => '0x' + n.toString(16);
    const head = (await rpc(node.url, 'eth_getBlockByNumber', [number(BigInt(latest.number) - 1n), false])).result as Record<
      string,
      string
    >;
    // The dev chain seals an empty block every second: the real successor of `head`, with the same system calls.
    const next = (await rpc(node.url, 'eth_getBlockByNumber', [latest.number, false])).result as Record<string, string>;
    const r = await sim(
      {
        blockStateCalls: [
          { blockOverrides: { time: next.timestamp }, calls: [] },
          { stateOverrides: { [C0]: { balance: '0x3e8' } }, calls: [{ from: C0, to: C1, value: '0x3e8' }] },
          { calls: [{ from: C1, to: C2, value: '0x3e8' }] },
        ],
      },
      head.number,
    );
    expect(r.error).toBeUndefined();
    const [empty, first, second] = r.result as Record<string, string>[];
    expect(empty.stateRoot).toBe(next.stateRoot);
    expect(empty.stateRoot).not.toBe(head.stateRoot);
    expect(empty.parentHash).toBe(head.hash);
    expect(first.parentHash).toBe(empty.hash);
    expect(second.parentHash).toBe(first.hash);
    expect((second as unknown as { calls: { status: string }[] }).calls[0].status).toBe('0x1');
  });

  it('behavior: traceTransfers adds ERC-7528 Transfer logs (not in the block bloom)', async () => {
    const r = await sim({
      blockStateCalls: [{ stateOverrides: { [C0]: { balance: '0x7d0' } }, calls: [{ from: C0, to: C1, value: '0x3e8' }] }],
      traceTransfers: true,
    });
    const [b] = r.result as Record<string, unknown>[];
    const [call] = b.calls as { logs: Record<string, unknown>[] }[];
    expect(call.logs).toHaveLength(1);
    expect(call.logs[0]).toMatchObject({
      address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
      topics: [
        '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
        '0x000000000000000000000000c000000000000000000000000000000000000000',
        '0x000000000000000000000000c100000000000000000000000000000000000000',
      ],
      data: '0x00000000000000000000000000000000000000000000000000000000000003e8',
      blockHash: b.hash,
      blockTimestamp: b.timestamp,
      logIndex: '0x0',
      removed: false,
    });
    expect(b.logsBloom).toBe('0x' + '00'.repeat(256));
  });

  it("behavior: with traceTransfers a block's logIndex counts the logs of failed calls too, as geth's tracer (execution-apis ethSimulate-use-as-many-features-as-possible)", async () => {
    // C1's code is INVALID: the transfer into it is logged, then dropped with the failed call (all its gas used, so
    // each call gets a gas limit); the count goes on.
    const logsOf = async (traceTransfers: boolean) => {
      const r = await sim({
        blockStateCalls: [
          {
            stateOverrides: { [C0]: { balance: '0x7d0' }, [C1]: { code: '0xfe' }, [C2]: { code: '0x60006000a000' } },
            calls: [
              { from: C0, to: C1, value: '0x1', gas: '0x10000' },
              { from: C0, to: C2, value: '0x1', gas: '0x10000' },
            ],
          },
        ],
        traceTransfers,
      });
      const [b] = r.result as Record<string, unknown>[];
      return (b.calls as { logs: Record<string, string>[] }[]).map((c) => c.logs.map((l) => [l.address, l.logIndex]));
    };
    // C2 transfers and then emits LOG0: indexes 1 and 2 after the dropped 0.
    expect(await logsOf(true)).toEqual([
      [],
      [
        ['0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', '0x1'],
        [C2, '0x2'],
      ],
    ]);
    expect(await logsOf(false)).toEqual([[], [[C2, '0x0']]]);
  });

  it("behavior: traceTransfers logs a SELFDESTRUCT's ether (the contract's balance) to its beneficiary (execution-apis ethSimulate-self-destructive-contract-produces-logs)", async () => {
    // PUSH20 C1, SELFDESTRUCT: the contract's whole balance (a state override) goes to C1.
    const code = `0x73${C1.slice(2)}ff`;
    const r = await sim({
      blockStateCalls: [{ stateOverrides: { [C2]: { code, balance: '0x1e8480' } }, calls: [{ from: C0, to: C2 }] }],
      traceTransfers: true,
    });
    const [b] = r.result as Record<string, unknown>[];
    const [call] = b.calls as { status: string; logs: Record<string, unknown>[] }[];
    expect(call.status).toBe('0x1');
    expect(call.logs.map((l) => [l.address, l.topics, l.data])).toEqual([
      [
        '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
        [
          '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
          '0x000000000000000000000000c200000000000000000000000000000000000000',
          '0x000000000000000000000000c100000000000000000000000000000000000000',
        ],
        '0x00000000000000000000000000000000000000000000000000000000001e8480',
      ],
    ]);
  });

  it('behavior: a reverting call reports status 0 with the revert data in error.data only; the block goes on', async () => {
    const reverter = '0x63deadbeef60e01b60005260046000fd';
    const r = await sim({
      blockStateCalls: [
        {
          stateOverrides: { [C2]: { code: reverter } },
          calls: [
            { from: C0, to: C2 },
            { from: C0, to: C1 },
          ],
        },
      ],
    });
    const [b] = r.result as Record<string, unknown>[];
    const [bad, good] = b.calls as Record<string, unknown>[];
    expect(bad.status).toBe('0x0');
    expect(bad.error).toEqual({ code: 3, message: 'execution reverted', data: '0xdeadbeef' });
    // As geth (execution-apis ethSimulate-eth-send-should-not-produce-logs-on-revert): no returnData on failure.
    expect(bad.returnData).toBe('0x');
    expect(good.status).toBe('0x1');
  });

  it("behavior: a revert with an Error(string) names its reason in the message, as geth's simulator", async () => {
    // Error("nope"): selector, offset, length, the padded text; the code copies it from its own tail and reverts with it.
    const payload =
      '08c379a0' + (0x20).toString(16).padStart(64, '0') + '4'.padStart(64, '0') + Buffer.from('nope').toString('hex').padEnd(64, '0');
    const reverter = '0x' + '6064600c600039' + '60646000fd' + payload;
    const r = await sim({ blockStateCalls: [{ stateOverrides: { [C2]: { code: reverter } }, calls: [{ from: C0, to: C2 }] }] });
    const [b] = r.result as Record<string, unknown>[];
    const [bad] = b.calls as Record<string, unknown>[];
    expect(bad.error).toEqual({ code: 3, message: 'execution reverted: nope', data: '0x' + payload });
  });

  it('behavior: movePrecompileToAddress runs ecrecover at its new address', async () => {
    // ecrecover of a dev-account signature: hash, v, r, s.
    const msg = '0x' + '11'.repeat(32);
    const sig = (await rpc(node.url, 'eth_sign', [DEV0, msg])).result as string;
    // eth_sign signs the EIP-191 digest; recompute it the way the precompile needs it.
    const { keccak256, concat, toBytes } = await import('viem');
    const digest = keccak256(concat([toBytes('\x19Ethereum Signed Message:\n32'), toBytes(msg)]));
    const input = digest + '00'.repeat(31) + sig.slice(130, 132) + sig.slice(2, 66) + sig.slice(66, 130);
    const moved = '0x0000000000000000000000000000000000123456';
    const r = await sim({
      blockStateCalls: [
        {
          stateOverrides: { '0x0000000000000000000000000000000000000001': { movePrecompileToAddress: moved } },
          calls: [
            { from: C0, to: moved, data: input },
            { from: C0, to: '0x0000000000000000000000000000000000000001', data: input },
          ],
        },
      ],
    });
    expect(r.error).toBeUndefined();
    const [b] = r.result as Record<string, unknown>[];
    const [atNew, atOld] = b.calls as Record<string, string>[];
    expect(atNew.returnData).toBe('0x000000000000000000000000' + DEV0.slice(2));
    expect(atOld.returnData).toBe('0x');
  });

  it('behavior: the gas cap (50M) is one budget for the whole request, as geth: each call gets what the calls before it left', async () => {
    const big = { gasLimit: '0x3b9aca00' };
    const r = await sim({
      blockStateCalls: [
        {
          blockOverrides: big,
          calls: [
            { from: C0, to: C1 },
            { from: C0, to: C1 },
          ],
        },
        { blockOverrides: big, calls: [{ from: C0, to: C1, gas: '0x3b9aca00' }] },
      ],
      returnFullTransactions: true,
    });
    expect(r.error).toBeUndefined();
    const gases = (r.result as Record<string, unknown>[]).flatMap((b) =>
      (b.transactions as Record<string, string>[]).map((t) => BigInt(t.gas)),
    );
    expect(gases).toEqual([50_000_000n, 50_000_000n - 21_000n, 50_000_000n - 42_000n]);
  });

  it("behavior: a call with an authorizationList is an EIP-7702 transaction: the authority runs the delegate's code after it", async () => {
    const authority = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
    const chainId = Number((await rpc(node.url, 'eth_chainId', [])).result);
    const auth = await authority.signAuthorization({ chainId, address: C1, nonce: 0 });
    const r = await sim({
      blockStateCalls: [
        {
          // C1 returns 42.
          stateOverrides: { [C0]: { balance: '0x1e8480' }, [C1]: { code: '0x602a60005260206000f3' } },
          calls: [
            {
              from: C0,
              to: C0,
              authorizationList: [
                {
                  chainId: toHex(chainId),
                  address: C1,
                  nonce: '0x0',
                  yParity: toHex(auth.yParity ?? 0),
                  r: toHex(BigInt(auth.r)),
                  s: toHex(BigInt(auth.s)),
                },
              ],
            },
            { from: C0, to: authority.address },
          ],
        },
      ],
      returnFullTransactions: true,
    });
    expect(r.error).toBeUndefined();
    const [b] = r.result as Record<string, unknown>[];
    const [delegate, call] = b.calls as Record<string, string>[];
    // 21,000 + 25,000 per authorization, 12,500 back for an authority that exists in state (this one does not).
    expect(delegate.maxUsedGas).toBe(toHex(46_000));
    expect(call.returnData).toBe('0x' + '2a'.padStart(64, '0'));
    expect((b.transactions as Record<string, string>[]).map((t) => t.type)).toEqual(['0x4', '0x2']);
  });

  it("behavior: a state override of a precompile's address replaces the precompile for its block; maxUsedGas covers the calldata floor", async () => {
    const identity = '0x0000000000000000000000000000000000000004';
    const call = { from: C0, to: identity, input: '0x1234' };
    const r = await sim({
      blockStateCalls: [{ stateOverrides: { [identity]: { code: '0x602a60005260206000f3' } }, calls: [call] }, { calls: [call] }],
    });
    expect(r.error).toBeUndefined();
    const [overridden, restored] = (r.result as Record<string, unknown>[]).map((b) => (b.calls as Record<string, string>[])[0]);
    expect(overridden.returnData).toBe('0x' + '2a'.padStart(64, '0'));
    // 21,050 of execution, under the EIP-7623 floor of 21,000 + 10 * 8 tokens.
    expect([overridden.gasUsed, overridden.maxUsedGas]).toEqual([toHex(21_080), toHex(21_080)]);
    expect(restored.returnData).toBe('0x1234');
  });

  it("behavior: a precompile's address stays warm (EIP-2929) when an override replaces or moves it; its new address starts cold, as geth", async () => {
    const ecrecover = '0x0000000000000000000000000000000000000001';
    const moved = '0x0000000000000000000000000000000000000123';
    // PUSH1 0x01 / PUSH2 0x0123, EXTCODEHASH, POP, STOP: 21,000 + 3 + 100 (warm) or 2,600 (cold) + 2.
    const probes = { [C1]: { code: '0x60013f5000' }, [C2]: { code: '0x6101233f5000' } };
    const calls = [
      { from: C0, to: C1 },
      { from: C0, to: C2 },
    ];
    const r = await sim({
      blockStateCalls: [
        { stateOverrides: probes, calls },
        { stateOverrides: { [ecrecover]: { code: '0x00' } }, calls },
        { stateOverrides: { [ecrecover]: { movePrecompileToAddress: moved } }, calls },
      ],
    });
    expect(r.error).toBeUndefined();
    const gas = (r.result as Record<string, unknown>[]).map((b) => (b.calls as Record<string, string>[]).map((c) => Number(c.gasUsed)));
    // (execution-apis ethSimulate-extcodehash-precompile: the same gas before and after the override of 0x01.)
    expect(gas).toEqual([
      [21_105, 23_605],
      [21_105, 23_605],
      [21_105, 23_605],
    ]);
  });

  it('behavior: eth_call and debug_traceCall drop an overridden precompile as eth_simulateV1 does (geth)', async () => {
    const sha256 = '0x0000000000000000000000000000000000000002';
    const call = { from: C0, to: sha256, data: '0x616263' };
    const digest = '0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    const code = { [sha256]: { code: '0x602a60005260206000f3' } };
    const balanceOnly = { [sha256]: { balance: '0x1' } };
    const ethCall = async (ov?: unknown) => (await rpc(node.url, 'eth_call', ov ? [call, 'latest', ov] : [call, 'latest'])).result;
    const simulated = async (ov: unknown) => {
      const r = await sim({ blockStateCalls: [{ stateOverrides: ov, calls: [{ from: C0, to: sha256, input: call.data }] }] });
      return ((r.result as Record<string, unknown>[])[0].calls as Record<string, string>[])[0].returnData;
    };
    expect(await ethCall()).toBe(digest);
    // geth's StateOverride.Apply deletes the precompile for any override of its address: the override's code runs, or
    // none (a balance alone leaves an empty account).
    expect([await ethCall(code), await simulated(code)]).toEqual(['0x' + '2a'.padStart(64, '0'), '0x' + '2a'.padStart(64, '0')]);
    expect([await ethCall(balanceOnly), await simulated(balanceOnly)]).toEqual(['0x', '0x']);
    const traced = await rpc(node.url, 'debug_traceCall', [call, 'latest', { tracer: 'callTracer', stateOverrides: code }]);
    expect((traced.result as { output: string }).output).toBe('0x' + '2a'.padStart(64, '0'));
    const plain = await rpc(node.url, 'debug_traceCall', [call, 'latest', { tracer: 'callTracer' }]);
    expect((plain.result as { output: string }).output).toBe(digest);
    expect(await ethCall()).toBe(digest);
  });

  it('error: an invalid BN254 point fails a simulated call with all its gas used and no revert data, as geth', async () => {
    const offCurve = `0x${'1'.padStart(64, '0')}${'3'.padStart(64, '0')}${'0'.repeat(128)}`;
    const r = await sim({
      blockStateCalls: [{ calls: [{ from: C0, to: '0x0000000000000000000000000000000000000006', input: offCurve, gas: '0x10000' }] }],
    });
    const [call] = (r.result as Record<string, unknown>[])[0].calls as Record<string, unknown>[];
    expect(call).toMatchObject({ status: '0x0', returnData: '0x', error: { code: -32015, message: 'point is not on curve' } });
    expect(BigInt(call.gasUsed as string)).toBe(0x10000n);
  });

  it('behavior: blobVersionedHashes make a blob call (BLOBHASH sees them) in eth_call, eth_estimateGas and eth_simulateV1, as geth', async () => {
    // BLOBHASH(0), returned as a word.
    const code = { [C1]: { code: '0x60004960005260206000f3' } };
    const hash = `0x01${'ab'.repeat(31)}`;
    const req = { from: C0, to: C1, blobVersionedHashes: [hash] };
    expect((await rpc(node.url, 'eth_call', [req, 'latest', code])).result).toBe(hash);
    expect((await rpc(node.url, 'eth_call', [{ from: C0, to: C1 }, 'latest', code])).result).toBe(`0x${'0'.repeat(64)}`);
    expect((await rpc(node.url, 'eth_estimateGas', [req, 'latest', code])).result).toMatch(/^0x[0-9a-f]+$/);
    // A fee cap above 0 is checked against the blob base fee (1 wei on the dev chain) and passes at it.
    expect((await rpc(node.url, 'eth_call', [{ ...req, maxFeePerBlobGas: '0x1' }, 'latest', code])).result).toBe(hash);
    expect((await rpc(node.url, 'eth_call', [{ ...req, blobVersionedHashes: [`0x02${'ab'.repeat(31)}`] }, 'latest', code])).error).toEqual({
      code: -32000,
      message: 'blob 0 has invalid hash version',
    });
    expect((await rpc(node.url, 'eth_call', [{ ...req, blobVersionedHashes: 'x' }, 'latest'])).error?.code).toBe(-32602);
    const r = await sim({ blockStateCalls: [{ stateOverrides: code, calls: [req, { from: C0, to: C1 }] }] });
    const [b] = r.result as Record<string, unknown>[];
    expect((b.calls as Record<string, string>[]).map((c) => c.returnData)).toEqual([hash, `0x${'0'.repeat(64)}`]);
    expect(b.blobGasUsed).toBe('0x20000');
  });

  it('behavior: two precompiles moved onto one address answer the block, the later one runs there; a move onto an overridden address is -32000, as geth', async () => {
    const ecrecover = '0x0000000000000000000000000000000000000001';
    const sha256 = '0x0000000000000000000000000000000000000002';
    // (execution-apis ethSimulate-move-two-accounts-to-same-38023: geth answers the block, no -38023.)
    const r = await sim({
      blockStateCalls: [
        {
          stateOverrides: { [ecrecover]: { movePrecompileToAddress: C2 }, [sha256]: { movePrecompileToAddress: C2 } },
          calls: [{ from: C0, to: C2, input: '0x616263' }],
        },
      ],
    });
    expect(r.error).toBeUndefined();
    const [call] = (r.result as Record<string, unknown>[])[0].calls as Record<string, string>[];
    expect(call.returnData).toBe('0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const onto = await sim({
      blockStateCalls: [{ stateOverrides: { [ecrecover]: { movePrecompileToAddress: C1 }, [C1]: { balance: '0x1' } } }],
    });
    expect(onto.error).toEqual({ code: -32000, message: 'account 0xc100000000000000000000000000000000000000 is already overridden' });
  });

  it('behavior: eth_call and debug_traceCall take movePrecompileToAddress as geth (and its two refusals, -32000)', async () => {
    const sha256 = '0x0000000000000000000000000000000000000002';
    const moved = '0x0000000000000000000000000000000000001234';
    const digest = '0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    const move = { [sha256]: { movePrecompileToAddress: moved } };
    const ethCall = (to: string, ov: unknown) => rpc(node.url, 'eth_call', [{ from: C0, to, data: '0x616263' }, 'latest', ov]);
    expect((await ethCall(moved, move)).result).toBe(digest);
    expect((await ethCall(sha256, move)).result).toBe('0x');
    const traced = await rpc(node.url, 'debug_traceCall', [
      { from: C0, to: moved, data: '0x616263' },
      'latest',
      { tracer: 'callTracer', stateOverrides: move },
    ]);
    expect((traced.result as { output: string }).output).toBe(digest);
    expect((await ethCall(moved, { [C1]: { movePrecompileToAddress: moved } })).error).toEqual({
      code: -32000,
      message: 'account 0xc100000000000000000000000000000000000000 is not a precompile',
    });
    expect((await ethCall(moved, { [sha256]: { MovePrecompileToAddress: moved }, [moved]: { balance: '0x1' } })).error).toEqual({
      code: -32000,
      message: 'account 0x0000000000000000000000000000000000001234 is already overridden',
    });
  });

  it('behavior: overrides are pre-state (execution-apis override-* cases): a CREATE replaces a code override; emptying code keeps storage', async () => {
    // C0's first CREATE lands at 0xf47b...b056 (nonce 0); the override there is pre-state, the created code wins.
    const created = '0xf47be3b1978c24bb4b498620b247b2622a2cb056';
    const forty2 = '0x' + '2a'.padStart(64, '0');
    const r = await sim({
      blockStateCalls: [
        {
          stateOverrides: { [C0]: { balance: '0x1e8480' }, [created]: { code: '0x' } },
          calls: [
            { from: C0, input: '0x69602a60005260206000f3600052600a6016f3' },
            { from: C0, to: created },
          ],
        },
        // Storage set, then the code emptied (account and slots kept), then code that reads slot 0.
        { stateOverrides: { [C1]: { code: '0x00', stateDiff: { ['0x' + '0'.repeat(64)]: forty2 } } }, calls: [] },
        { stateOverrides: { [C1]: { nonce: '0x0', code: '0x', balance: '0x0' } }, calls: [] },
        { stateOverrides: { [C1]: { code: '0x60005460005260206000f3' } }, calls: [{ from: C0, to: C1 }] },
      ],
    });
    expect(r.error).toBeUndefined();
    const calls = (r.result as Record<string, unknown>[]).map((b) => b.calls as Record<string, string>[]);
    expect(calls[0].map((c) => [c.returnData, c.gasUsed, c.status])).toEqual([
      ['0x602a60005260206000f3', '0xd7f8', '0x1'],
      [forty2, '0x521a', '0x1'],
    ]);
    expect(calls[3][0].returnData).toBe(forty2);
  });

  it("error: the spec's codes for invalid requests", async () => {
    const head = (await rpc(node.url, 'eth_getBlockByNumber', ['latest', false])).result as Record<string, string>;
    const codes = async (payload: unknown) => (await sim(payload)).error?.code;
    expect(
      await codes({
        blockStateCalls: [
          { stateOverrides: { [DEV0]: { nonce: '0x5' } }, calls: [{ from: DEV0, to: C1, nonce: '0x0', maxFeePerGas: '0x174876e800' }] },
        ],
        validation: true,
      }),
    ).toBe(-38010);
    expect(
      await codes({
        blockStateCalls: [{ calls: [{ from: DEV0, to: C1, maxFeePerGas: '0x0', maxPriorityFeePerGas: '0x0' }] }],
        validation: true,
      }),
    ).toBe(-38012);
    expect(await codes({ blockStateCalls: [{ calls: [{ from: C0, to: C1, value: '0x1' }] }] })).toBe(-38014);
    // geth's wording (applyMessageWithEVM), as the execution-apis cases have it.
    expect((await sim({ blockStateCalls: [{ calls: [{ from: C0, to: C1, value: '0x1', gas: '0x7530' }] }] })).error).toEqual({
      code: -38014,
      message:
        'err: insufficient funds for gas * price + value: address 0xC000000000000000000000000000000000000000 have 0 want 1 (supplied gas 30000)',
    });
    expect(await codes({ blockStateCalls: [{ blockOverrides: { number: head.number }, calls: [] }] })).toBe(-38020);
    expect(
      await codes({
        blockStateCalls: [
          { blockOverrides: { time: '0x' + (BigInt(head.timestamp) + 100n).toString(16) } },
          { blockOverrides: { time: head.timestamp } },
        ],
      }),
    ).toBe(-38021);
    expect(
      await codes({
        blockStateCalls: [
          {
            stateOverrides: {
              '0x0000000000000000000000000000000000000001': { movePrecompileToAddress: '0x0000000000000000000000000000000000000001' },
            },
          },
        ],
      }),
    ).toBe(-38022);
    expect(await codes({ blockStateCalls: [{ calls: [{ from: C0, to: C1, gas: '0x1' }] }] })).toBe(-38013);
    expect(await codes({ blockStateCalls: Array.from({ length: 257 }, () => ({})) })).toBe(-38026);
    expect(await codes({ blockStateCalls: 'x' })).toBe(-32602);
    // geth's SimulateV1: no blocks (absent, null or []) is "empty input" (execution-apis ethSimulate-empty-ethSimulate).
    for (const payload of [{}, { blockStateCalls: null }, { blockStateCalls: [] }])
      expect((await sim(payload)).error).toEqual({ code: -32602, message: 'empty input' });
    // geth's generic codes: a move of an address without a precompile (checked before the duplicate-target check; Go
    // matches the field name in any case), and a nonce at 2^64 - 1.
    const move = (to: string) => ({ movePrecompileToAddress: to });
    expect(await codes({ blockStateCalls: [{ stateOverrides: { [C0]: { MovePrecompileToAddress: C1 } } }] })).toBe(-32000);
    expect(
      await codes({ blockStateCalls: [{ stateOverrides: { '0x0000000000000000000000000000000000000001': move(C2), [C0]: move(C2) } }] }),
    ).toBe(-32000);
    expect(
      await codes({
        blockStateCalls: [
          { stateOverrides: { [C0]: { nonce: '0xffffffffffffffff' } }, calls: [{ from: C0, to: C1, maxFeePerGas: '0x174876e800' }] },
        ],
        validation: true,
      }),
    ).toBe(-32603);
  });

  it('behavior: without validation a sender at nonce 2^64 - 1 calls, and its nonce wraps to 0, as geth (execution-apis ethSimulate-overflow-nonce)', async () => {
    const r = await sim({
      blockStateCalls: [
        {
          stateOverrides: { [C0]: { nonce: '0xffffffffffffffff' } },
          calls: [
            { from: C0, to: C1 },
            { from: C0, to: C1 },
          ],
        },
      ],
      returnFullTransactions: true,
    });
    expect(r.error).toBeUndefined();
    const [b] = r.result as Record<string, unknown>[];
    expect((b.calls as Record<string, string>[]).map((c) => [c.status, c.gasUsed])).toEqual([
      ['0x1', '0x5208'],
      ['0x1', '0x5208'],
    ]);
    expect((b.transactions as Record<string, string>[]).map((t) => t.nonce)).toEqual(['0xffffffffffffffff', '0x0']);
  });

  it('behavior: viem simulateCalls on top of eth_simulateV1', async () => {
    const client = createPublicClient({ transport: http(node.url) });
    const { results } = await client.simulateCalls({
      account: DEV0,
      calls: [
        { to: C1, value: 1n },
        { to: C2, value: 2n },
      ],
    });
    expect(results.map((x) => x.status)).toEqual(['success', 'success']);
    expect(results[0].gasUsed).toBe(21000n);
  });
});
