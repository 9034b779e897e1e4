import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { parseGenesis } from '../../core/chain/genesis/index.ts';
import {
  call,
  callEnvironmentAt,
  CallError,
  createAccessList,
  estimateGas,
  type CallEnvironment,
  type CallRequest,
} from '../../core/exec/call/index.ts';
import { MEMO_MIN_ROUNDS } from '../../core/exec/evm/blake2fMemo.ts';
import { blake2fMemo } from '../../core/exec/evm/blake2fPrecompile.ts';
import { importBlocks } from '../../core/exec/import/importFile.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { openReadOnly, type ReadOnlyChainStore } from '../../core/store/index.ts';
import { conformancePath } from '../support/conformance.ts';

const DIR = conformancePath('execution-apis-london');
const genesis = parseGenesis(readFileSync(join(DIR, 'genesis.json'), 'utf8'));

/** Request and expected result of an execution-apis `.io` fixture. */
function fixture(path: string): { params: Record<string, string>; result: unknown } {
  const lines = readFileSync(join(DIR, path), 'utf8').split('\n');
  const req = JSON.parse((lines.find((l) => l.startsWith('>> ')) as string).slice(3)) as { params: [Record<string, string>] };
  const res = JSON.parse((lines.find((l) => l.startsWith('<< ')) as string).slice(3)) as { result: unknown };
  return { params: req.params[0], result: res.result };
}

function requestOf(p: Record<string, string>): CallRequest {
  return {
    from: p.from ? hexToBytes(p.from) : undefined,
    to: p.to ? hexToBytes(p.to) : undefined,
    gas: p.gas ? BigInt(p.gas) : undefined,
    data: p.data ? hexToBytes(p.data) : undefined,
    value: p.value ? BigInt(p.value) : undefined,
  };
}

let reader: ReadOnlyChainStore;
let env: CallEnvironment;

beforeAll(async () => {
  const datadir = mkdtempSync(join(tmpdir(), 'xone-call-'));
  const r = await importBlocks({ genesis, datadir, files: [join(DIR, 'chain.rlp')] });
  expect(r.error).toBeUndefined();
  reader = openReadOnly(datadir);
  env = callEnvironmentAt(reader, genesis.config, 3);
});

afterAll(() => reader?.close());

describe('call entry points against the execution-apis London chain', () => {
  it.each(['eth_call/call-simple-contract.io', 'eth_call/call-simple-transfer.io'])('call: %s', async (path) => {
    const f = fixture(path);
    const r = await call(requestOf(f.params), env);
    expect(bytesToHex(r.returnData)).toBe(f.result);
  });

  it.each(['eth_estimateGas/estimate-simple-contract.io', 'eth_estimateGas/estimate-simple-transfer.io'])(
    'estimateGas: %s',
    async (path) => {
      const f = fixture(path);
      expect(`0x${(await estimateGas(requestOf(f.params), env)).toString(16)}`).toBe(f.result);
    },
  );

  it.each([
    'eth_createAccessList/create-al-multiple-reads.io',
    'eth_createAccessList/create-al-simple-contract.io',
    'eth_createAccessList/create-al-simple-transfer.io',
  ])('createAccessList: %s', async (path) => {
    const f = fixture(path);
    const r = await createAccessList(requestOf(f.params), env);
    const got = {
      accessList: r.accessList.map((e) => ({ address: bytesToHex(e.address), storageKeys: e.storageKeys.map(bytesToHex) })),
      gasUsed: `0x${r.gasUsed.toString(16)}`,
    };
    expect(got).toEqual(f.result);
  });

  it('behavior: revert data comes back as bytes', async () => {
    // PUSH1 0x2a PUSH1 0 MSTORE PUSH1 32 PUSH1 0 REVERT, deployed as initcode: a creation call that reverts with 42.
    const r = await call({ data: hexToBytes('0x602a60005260206000fd') }, env);
    expect(r.reverted).toBe(true);
    expect(bytesToHex(r.returnData)).toBe(`0x${'00'.repeat(31)}2a`);
    await expect(estimateGas({ data: hexToBytes('0x602a60005260206000fd') }, env)).rejects.toMatchObject({ code: 'CALL_REVERTED' });
  });

  it('behavior: eth_estimateGas computes a heavy BLAKE2F once, its other runs answered by the memo (#18)', async () => {
    // Initcode: CODECOPY the 213-byte input appended at byte 31 to memory 0, CALL 0x09 with it, revert unless it
    // succeeded (so a limit too low for the rounds fails), STOP. The input asks for MEMO_MIN_ROUNDS rounds.
    const input = new Uint8Array(213);
    new DataView(input.buffer).setUint32(0, MEMO_MIN_ROUNDS);
    input.fill(7, 4, 212);
    input[212] = 1;
    const code = hexToBytes(`0x6100d5601f60003960406000` + `60d56000600060095af1601d57600080fd5b00${Buffer.from(input).toString('hex')}`);
    blake2fMemo.clear();
    const gas = await estimateGas({ data: code }, env);
    expect(gas).toBeGreaterThan(BigInt(MEMO_MIN_ROUNDS));
    expect(blake2fMemo.size).toBe(1);
    expect(blake2fMemo.hits).toBeGreaterThan(0);
    expect((await call({ data: code, gas }, env)).reverted).toBe(false);
  });

  it('error: an endless loop stops at the timeout', async () => {
    // JUMPDEST PUSH1 0 JUMP: loops until gas or time runs out.
    const started = performance.now();
    const err = await call({ data: hexToBytes('0x5b600056'), gas: 50_000_000n }, env, { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallError);
    expect((err as CallError).code).toBe('CALL_TIMEOUT');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('behavior: the gas cap bounds a call', async () => {
    const r = await call({ data: hexToBytes('0x5b600056'), gas: 10n ** 12n }, env, { gasCap: 100_000n, timeoutMs: 5_000 });
    expect(r.gasUsed).toBe(100_000n);
    expect(r.error).toBe('out of gas');
  });
});

describe("a message no gas limit makes valid, in geth's words", () => {
  const from = hexToBytes('0x658bdf435d810c91414ec09147daa6db62406379');
  const to = hexToBytes('0x0100000000000000000000000000000000000000');

  it('error: estimateGas with a fee cap below the base fee says so (not "gas required exceeds allowance")', async () => {
    const baseFee = env.header.baseFeePerGas as bigint;
    const req: CallRequest = { from, to, value: 1n, maxFeePerGas: baseFee - 1n, maxPriorityFeePerGas: 0n };
    const message = `max fee per gas less than block base fee: address 0x658Bdf435d810C91414eC09147DAA6DB62406379, maxFeePerGas: ${baseFee - 1n}, baseFee: ${baseFee}`;
    const estimate = await estimateGas(req, env).catch((e: unknown) => e);
    expect(estimate).toBeInstanceOf(CallError);
    expect((estimate as CallError).code).toBe('CALL_INVALID');
    expect((estimate as CallError).message).toBe(message);
    const called = await call(req, env).catch((e: unknown) => e);
    expect((called as CallError).message).toBe(message);
  });

  it('error: a tip above the fee cap is refused the same way', async () => {
    const baseFee = env.header.baseFeePerGas as bigint;
    const req: CallRequest = { from, to, maxFeePerGas: baseFee, maxPriorityFeePerGas: baseFee + 1n };
    const estimate = await estimateGas(req, env).catch((e: unknown) => e);
    expect((estimate as CallError).message).toMatch(/^max priority fee per gas higher than max fee per gas: address 0x[0-9a-fA-F]{40}, /);
  });

  it.each([
    ['a loop of SSTOREs with a refund', '6001600055' + '6000600055' + '6002600155' + '00'],
    [
      'a call that needs its 1/64 kept back (identity precompile, must succeed)',
      '60006000600060006000' + '6004' + '5a' + 'f1' + '15' + '6013' + '57' + '00' + '5b' + 'fe',
    ],
  ])('behavior: the estimate of %s is the smallest limit that works (one less fails)', async (_what, code) => {
    const req: CallRequest = { from, data: hexToBytes(`0x${code}`) };
    const e = await estimateGas(req, env);
    expect((await call({ ...req, gas: e }, env)).error).toBeUndefined();
    expect((await call({ ...req, gas: e - 1n }, env)).error).toBeDefined();
  });

  it('behavior: a gas limit below the intrinsic gas still makes the search raise the limit', async () => {
    expect(await estimateGas({ from, to, value: 1n }, env)).toBe(21_000n);
  });
});

describe('an opcode of a later fork than the block (London here)', () => {
  it.each([
    ['5e', 'invalid opcode: MCOPY (0x5e) is not active before Cancun'],
    ['5c', 'invalid opcode: TLOAD (0x5c) is not active before Cancun'],
    ['6001' + '1e', 'invalid opcode: CLZ (0x1e) is not active before Osaka'],
    ['5f', 'invalid opcode: PUSH0 (0x5f) is not active before Shanghai'],
    ['fe', 'invalid opcode'],
  ])('error: initcode %s fails naming the opcode and its fork', async (code, message) => {
    const r = await call({ data: hexToBytes(`0x${code}`) }, env);
    expect(r.reverted).toBe(false);
    expect(r.error).toBe(message);
    // geth's estimator answers a failure that no gas limit cures in the EVM's words alone.
    const estimate = await estimateGas({ data: hexToBytes(`0x${code}`) }, env).catch((e: unknown) => e);
    expect(estimate).toBeInstanceOf(CallError);
    expect((estimate as CallError).code).toBe('CALL_FAILED');
    expect((estimate as CallError).message).toBe(message);
  });
});
