/**
 * Differential tracing against anvil 1.7.1 (npm @foundry-rs/anvil, `--hardfork shanghai` like the dev chain): the
 * same transactions (a transfer, nested CALL/STATICCALL/DELEGATECALL with value and logs, a precompile, CREATE and
 * CREATE2, a revert with a reason and one with a custom error, SELFDESTRUCT, a loop, calls refused before they start)
 * sent to both nodes, then traced
 * with callTracer, prestateTracer (plain and diffMode) and the struct logger, answers compared field by field.
 * docs/tracing.md lists the intended differences; this test normalises exactly those and nothing else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { compileTraceContracts } from '../../core/bench/rpc/traceContracts.ts';
import { rpc } from './support/rpcCall.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const DEAD = '0x000000000000000000000000000000000000dead';
const FEES = { maxFeePerGas: '0x174876e800', maxPriorityFeePerGas: '0x3b9aca00' };

let ours: DevNode;
let anvil: { url: string; child: ChildProcess };
const sent: Record<string, string[]> = {};
let traceeAddress = '';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** One call; a loaded host can make the node shed expensive methods for a moment (-32005, the watchdog): ask again. */
const ask = async (url: string, method: string, params: unknown[] = []): Promise<Awaited<ReturnType<typeof rpc>>> => {
  let r = await once(url, method, params);
  for (let i = 0; i < 50 && r.error?.code === -32005; i++) {
    await new Promise((res) => setTimeout(res, 100));
    r = await once(url, method, params);
  }
  return r;
};

/**
 * A reused keep-alive socket can be reset under a loaded host (CI saw ECONNRESET in setup): a read is asked again, as
 * viem's HTTP transport retries; a send never is, since the first one may have reached the node.
 */
async function once(url: string, method: string, params: unknown[]): Promise<Awaited<ReturnType<typeof rpc>>> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await rpc(url, method, params);
    } catch (e) {
      const code = (e as { cause?: { code?: string } }).cause?.code;
      if (attempt >= 3 || method === 'eth_sendTransaction' || (code !== 'ECONNRESET' && code !== 'EPIPE')) throw e;
      await new Promise((res) => setTimeout(res, 100));
    }
  }
}

const call = async (url: string, method: string, params: unknown[] = []): Promise<unknown> => {
  const r = await ask(url, method, params);
  if (r.error) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
  return r.result;
};

async function receipt(url: string, hash: string): Promise<Record<string, string>> {
  for (let i = 0; i < 400; i++) {
    const r = (await call(url, 'eth_getTransactionReceipt', [hash])) as Record<string, string> | null;
    if (r) return r;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`no receipt for ${hash}`);
}

beforeAll(async () => {
  const port = await freePort();
  const bin = join(ROOT, 'node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil');
  const child = spawn(
    bin,
    [
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--chain-id',
      '1337',
      '--accounts',
      '20',
      '--hardfork',
      'shanghai',
      '--steps-tracing',
      '--silent',
    ],
    {
      stdio: 'ignore',
    },
  );
  anvil = { url: `http://127.0.0.1:${port}`, child };
  ours = await startDevNode(['--period', '1', '--hardfork', 'shanghai']);
  for (let i = 0; ; i++) {
    if ((await rpc(anvil.url, 'eth_chainId').catch(() => ({ error: 1 }))).error === undefined) break;
    if (i > 200) throw new Error('anvil did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  await call(ours.url, 'evm_setAutomine', [true]);
  const { Tracee } = compileTraceContracts();
  const abi = Tracee.abi as Abi;
  const txs: Record<string, unknown>[] = [
    { to: DEAD, value: '0x1', gas: '0x5208' },
    { data: encodeDeployData({ abi, bytecode: Tracee.bytecode }), value: '0xde0b6b3a7640000', gas: '0x2dc6c0' },
  ];
  for (const url of [ours.url, anvil.url]) {
    sent[url] = [];
    for (const tx of txs) {
      const h = (await call(url, 'eth_sendTransaction', [{ from: DEV0, ...FEES, ...tx }])) as string;
      const r = await receipt(url, h);
      if (r.contractAddress) traceeAddress = r.contractAddress;
      sent[url].push(h);
    }
    const calls: [string, unknown[], string?][] = [
      ['nested', [5n], '0x64'],
      ['make', ['0x' + '11'.repeat(32)]],
      ['revertMe', []],
      ['customRevert', []],
      ['loop', [10n]],
      ['killChild', []],
      ['overspend', []],
    ];
    for (const [fn, args, value] of calls) {
      const data = encodeFunctionData({ abi, functionName: fn, args });
      const h = (await call(url, 'eth_sendTransaction', [
        { from: DEV0, to: traceeAddress, data, gas: '0x7a120', ...FEES, ...(value ? { value } : {}) },
      ])) as string;
      await receipt(url, h);
      sent[url].push(h);
    }
  }
}, 180_000);

afterAll(async () => {
  await ours?.stop();
  if (anvil?.child.exitCode === null) {
    const exited = new Promise((r) => anvil.child.once('exit', r));
    anvil.child.kill('SIGTERM');
    await exited;
  }
});

const LABELS = [
  'transfer',
  'deploy (CREATE in a constructor)',
  'nested calls, logs, value, precompile',
  'CREATE2',
  'revert with a reason',
  'custom error',
  'loop',
  'SELFDESTRUCT',
  'a CALL and a CREATE refused for value above the balance',
];

async function bothTraces(i: number, config: unknown): Promise<[unknown, unknown]> {
  const out = (await Promise.all([ours.url, anvil.url].map((u) => call(u, 'debug_traceTransaction', [sent[u][i], config])))) as [
    unknown,
    unknown,
  ];
  // XONE_TRACE_DUMP=DIR keeps both answers of every comparison, for looking at a difference.
  const dump = process.env.XONE_TRACE_DUMP;
  if (dump)
    writeFileSync(
      join(dump, `${i}-${JSON.stringify(config).replace(/[^a-zA-Z]/g, '')}.json`),
      JSON.stringify({ ours: out[0], anvil: out[1] }),
    );
  return out;
}

/**
 * The intended differences (docs/tracing.md), removed before comparing: the top call's `gas` (geth: the transaction's
 * gas limit; anvil: what is left after the intrinsic gas), the sender's balance (it depends on each chain's base fee,
 * not on the tracer), and the accounts a transaction created, which geth leaves out of the prestate and anvil keeps.
 */
function withoutTopGas(t: unknown): unknown {
  const { gas: _gas, ...rest } = t as Record<string, unknown>;
  return rest;
}

function createdBy(frame: Record<string, unknown>, out = new Set<string>()): Set<string> {
  if ((frame.type === 'CREATE' || frame.type === 'CREATE2') && typeof frame.to === 'string') out.add(frame.to);
  for (const c of (frame.calls as Record<string, unknown>[] | undefined) ?? []) createdBy(c, out);
  return out;
}

function normalisePrestate(t: unknown, created: Set<string>): unknown {
  const strip = (m: Record<string, Record<string, unknown>>): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(m)
        .filter(([a]) => !created.has(a))
        .map(([a, v]) => {
          if (a !== DEV0) return [a, v];
          const { balance: _b, ...rest } = v;
          return [a, rest];
        }),
    );
  const o = t as Record<string, Record<string, Record<string, unknown>>>;
  return 'pre' in o && 'post' in o ? { pre: strip(o.pre), post: strip(o.post) } : strip(o as Record<string, Record<string, unknown>>);
}

describe('callTracer against anvil', () => {
  for (const [i, label] of LABELS.entries()) {
    it(`behavior: ${label}`, async () => {
      const [o, a] = await bothTraces(i, { tracer: 'callTracer', tracerConfig: { withLog: true } });
      expect(withoutTopGas(o)).toEqual(withoutTopGas(a));
    });
  }
});

describe('prestateTracer against anvil', () => {
  for (const [i, label] of LABELS.entries()) {
    it(`behavior: ${label}`, async () => {
      const calls = (await call(ours.url, 'debug_traceTransaction', [sent[ours.url][i], { tracer: 'callTracer' }])) as Record<
        string,
        unknown
      >;
      const created = createdBy(calls);
      const [o, a] = await bothTraces(i, { tracer: 'prestateTracer' });
      expect(normalisePrestate(o, created)).toEqual(normalisePrestate(a, created));
      const [od, ad] = await bothTraces(i, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } });
      expect(normalisePrestate(od, new Set())).toEqual(normalisePrestate(ad, new Set()));
    });
  }
});

/**
 * anvil writes memory words and storage with 0x and a zero refund, where geth (and we) write none of the three
 * (logger.go toLegacyJSON); and it counts the gas a CREATE passes on in the CREATE's gasCost, which geth does not.
 */
function anvilStep(step: Record<string, unknown>): Record<string, unknown> {
  const { refund, memory, storage, ...rest } = step;
  const out: Record<string, unknown> = { ...rest };
  if (Array.isArray(memory) && memory.length > 0) out.memory = memory.map((w: string) => w.replace(/^0x/, ''));
  if (storage !== undefined)
    out.storage = Object.fromEntries(
      Object.entries(storage as Record<string, string>).map(([k, v]) => [k.replace(/^0x/, ''), v.replace(/^0x/, '')]),
    );
  if (refund !== 0 && refund !== undefined) out.refund = refund;
  return withoutCreateCost(out);
}

function withoutCreateCost(step: Record<string, unknown>): Record<string, unknown> {
  if (step.op !== 'CREATE' && step.op !== 'CREATE2') return step;
  const { gasCost: _c, ...rest } = step;
  return rest;
}

describe('struct logger against anvil', () => {
  for (const [i, label] of LABELS.entries()) {
    it(`behavior: ${label}`, async () => {
      const [o, a] = (await bothTraces(i, { enableMemory: true })) as [StructResult, StructResult];
      expect({ gas: o.gas, failed: o.failed, returnValue: o.returnValue, steps: o.structLogs.length }).toEqual({
        gas: a.gas,
        failed: a.failed,
        returnValue: a.returnValue,
        steps: a.structLogs.length,
      });
      for (let k = 0; k < o.structLogs.length; k++)
        expect(withoutCreateCost(o.structLogs[k]), `step ${k}`).toEqual(anvilStep(a.structLogs[k]));
    });
  }
});

describe('struct logger: code that runs out', () => {
  it('behavior: ends with the STOP its padding holds, as anvil and geth trace it', async () => {
    // Init code GAS: no STOP byte after it.
    const traces = (await Promise.all(
      [ours.url, anvil.url].map((u) => call(u, 'debug_traceCall', [{ from: DEV0, data: '0x5a', gas: '0x30d40' }, 'latest', {}])),
    )) as StructResult[];
    const ops = traces.map((t) => t.structLogs.map((l) => [l.pc, l.op, l.gasCost, l.stack]));
    expect(ops[0]).toEqual(ops[1]);
    expect(ops[0].map(([pc, op]) => [pc, op])).toEqual([
      [0, 'GAS'],
      [1, 'STOP'],
    ]);
  });
});

interface StructResult {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: Record<string, unknown>[];
}

describe('the other tracers, block tracing and trace_* on our node', () => {
  const nested = 2;
  it('behavior: 4byteTracer counts selectors with calldata sizes, precompiles left out', async () => {
    const r = (await call(ours.url, 'debug_traceTransaction', [sent[ours.url][nested], { tracer: '4byteTracer' }])) as Record<
      string,
      number
    >;
    expect(r['0x60fe47b1-32']).toBe(1); // set(uint256)
    expect(r['0xa9cc4718-0']).toBe(1); // fail()
    expect(r['0x0c55699c-0']).toBe(2); // x() by STATICCALL and DELEGATECALL
    expect(Object.values(r).reduce((a, b) => a + b, 0)).toBe(5);
  });

  it('behavior: noopTracer answers {}; an unknown tracer is refused before anything runs', async () => {
    expect(await call(ours.url, 'debug_traceTransaction', [sent[ours.url][nested], { tracer: 'noopTracer' }])).toEqual({});
    const bad = await ask(ours.url, 'debug_traceTransaction', [sent[ours.url][nested], { tracer: 'jsTracer' }]);
    expect(bad.error?.code).toBe(-32000);
    expect(bad.error?.message).toMatch(/^tracer "jsTracer" not found/);
    const badTimeout = await ask(ours.url, 'debug_traceTransaction', [sent[ours.url][nested], { timeout: 'soon' }]);
    expect(badTimeout.error?.code).toBe(-32602);
  });

  it('error: a trace past its timeout stops with geth\'s "execution timeout"', async () => {
    const r = await ask(ours.url, 'debug_traceTransaction', [sent[ours.url][nested], { timeout: '1ns' }]);
    expect(r.error).toEqual({ code: -32000, message: 'execution timeout' });
  });

  it('behavior: debug_traceBlockByNumber / ByHash answer [{txHash, result}] equal to the transaction traces', async () => {
    const receipt = (await call(ours.url, 'eth_getTransactionReceipt', [sent[ours.url][nested]])) as Record<string, string>;
    const cfg = { tracer: 'callTracer' };
    const byNumber = (await call(ours.url, 'debug_traceBlockByNumber', [receipt.blockNumber, cfg])) as {
      txHash: string;
      result: unknown;
    }[];
    const byHash = await call(ours.url, 'debug_traceBlockByHash', [receipt.blockHash, cfg]);
    expect(byHash).toEqual(byNumber);
    expect(byNumber).toEqual([
      { txHash: sent[ours.url][nested], result: await call(ours.url, 'debug_traceTransaction', [sent[ours.url][nested], cfg]) },
    ]);
    const raw = (await call(ours.url, 'debug_getRawBlock', [receipt.blockNumber])) as string;
    expect(await call(ours.url, 'debug_traceBlock', [raw, cfg])).toEqual(byNumber);
  });

  it("error: a missing block gets geth's tracer texts (execution-apis calltracer-invalid-block, trace-block-not-found); pending is refused for debug_traceCall", async () => {
    const missing = '0x' + '00'.repeat(31) + '01';
    const cfg = { tracer: 'callTracer' };
    const errorOf = async (method: string, params: unknown[]) => (await ask(ours.url, method, params)).error;
    const server = (message: string) => ({ code: -32000, message });
    expect(await errorOf('debug_traceCall', [{ from: DEV0, to: DEAD }, '0xfffffffff', cfg])).toEqual(
      server('block #68719476735 not found'),
    );
    expect(await errorOf('debug_traceCall', [{ from: DEV0, to: DEAD }, missing, cfg])).toEqual(server(`block ${missing} not found`));
    expect(await errorOf('debug_traceCall', [{ from: DEV0, to: DEAD }, 'pending', cfg])).toEqual(
      server('tracing on top of pending is not supported'),
    );
    expect(await errorOf('debug_traceBlockByNumber', ['0xfffffffff', cfg])).toEqual(server('block #68719476735 not found'));
    expect(await errorOf('debug_traceBlockByHash', [missing, cfg])).toEqual(server(`block ${missing} not found`));
    expect(await errorOf('debug_traceBlockByNumber', ['0x0'])).toEqual(server('genesis is not traceable'));
    expect(await errorOf('debug_traceTransaction', [missing])).toEqual(server('transaction not found'));
  });

  it('behavior: debug_traceCall with a state override', async () => {
    const { Tracee } = compileTraceContracts();
    const data = encodeFunctionData({ abi: Tracee.abi as Abi, functionName: 'counter', args: [] });
    const slot1 = '0x' + '00'.repeat(31) + '01';
    const value = '0x' + '00'.repeat(31) + '2a';
    const r = (await call(ours.url, 'debug_traceCall', [
      { from: DEV0, to: traceeAddress, data },
      'latest',
      { tracer: 'callTracer', stateOverrides: { [traceeAddress]: { stateDiff: { [slot1]: value } } } },
    ])) as Record<string, string>;
    expect(r.output).toBe(value);
    expect(r.type).toBe('CALL');
  });

  it('behavior: trace_transaction, trace_block, trace_replayTransaction and trace_filter give Parity traces', async () => {
    const hash = sent[ours.url][nested];
    const flat = (await call(ours.url, 'trace_transaction', [hash])) as Record<string, unknown>[];
    expect(flat.map((t) => [t.type, (t.action as Record<string, string>).callType, t.traceAddress])).toEqual([
      ['call', 'call', []],
      ['call', 'call', [0]],
      ['call', 'call', [1]],
      ['call', 'staticcall', [2]],
      ['call', 'delegatecall', [3]],
    ]);
    expect(flat[2].error).toBe('execution reverted');
    expect(flat[0].subtraces).toBe(4);
    expect(flat[0].transactionHash).toBe(hash);
    const receipt = (await call(ours.url, 'eth_getTransactionReceipt', [hash])) as Record<string, string>;
    expect(await call(ours.url, 'trace_block', [receipt.blockNumber])).toEqual(flat);
    const replay = (await call(ours.url, 'trace_replayTransaction', [hash, ['trace']])) as Record<string, unknown>;
    expect(replay.stateDiff).toBeNull();
    expect(replay.vmTrace).toBeNull();
    expect((replay.trace as unknown[]).length).toBe(5);
    const filtered = (await call(ours.url, 'trace_filter', [
      { fromBlock: '0x1', toBlock: 'latest', toAddress: [traceeAddress] },
    ])) as Record<string, unknown>[];
    expect(filtered.some((t) => t.transactionHash === hash)).toBe(true);
    // toAddress matches a call's target or the contract a creation made (Erigon's rule).
    expect(
      filtered.every(
        (t) => (t.action as Record<string, string>).to === traceeAddress || (t.result as Record<string, string>)?.address === traceeAddress,
      ),
    ).toBe(true);
    expect((await ask(ours.url, 'trace_replayTransaction', [hash, ['bogus']])).error?.code).toBe(-32602);
  });

  it('behavior: trace_replayTransaction vmTrace walks the same ops as the struct logger, sub-traces per call', async () => {
    for (const i of [nested, 1, 6, 8]) {
      const hash = sent[ours.url][i];
      const r = (await call(ours.url, 'trace_replayTransaction', [hash, ['vmTrace']])) as { vmTrace: VmFrame; trace: unknown[] };
      expect(r.trace).toEqual([]);
      const logs = ((await call(ours.url, 'debug_traceTransaction', [hash, {}])) as StructResult).structLogs;
      const flat: { op: VmOp; depth: number }[] = [];
      const walk = (f: VmFrame, depth: number): void => {
        for (const op of f.ops) {
          flat.push({ op, depth });
          if (op.sub) walk(op.sub, depth + 1);
        }
      };
      walk(r.vmTrace, 1);
      expect(flat.map(({ op, depth }) => [op.pc, op.op, depth])).toEqual(logs.map((l) => [l.pc, l.op, l.depth]));
      // cost: the struct logger's gasCost (a creation's too, with the gas it passes on); used: the gas before the next op.
      for (const [k, { op }] of flat.entries()) {
        if (op.op !== 'CREATE' && op.op !== 'CREATE2') expect(op.cost, `op ${k}`).toBe(logs[k].gasCost);
        const next = logs[k + 1];
        if (op.ex && next && next.depth === logs[k].depth) expect(op.ex.used, `op ${k}`).toBe(next.gas);
      }
    }
    const r = (await call(ours.url, 'trace_replayTransaction', [sent[ours.url][nested], ['vmTrace']])) as { vmTrace: VmFrame };
    expect(r.vmTrace.code).toBe(await call(ours.url, 'eth_getCode', [traceeAddress, 'latest']));
    const calls = r.vmTrace.ops.filter((o) => /CALL$/.test(o.op));
    expect(calls.map((o) => o.op).sort()).toEqual(['CALL', 'CALL', 'DELEGATECALL', 'STATICCALL', 'STATICCALL']);
    // Every call opened a frame; the precompile's (a STATICCALL) runs no ops.
    expect(calls.every((o) => o.sub !== null)).toBe(true);
    expect(calls.filter((o) => o.sub?.ops.length === 0).length).toBe(1);
    const sstore = r.vmTrace.ops.find((o) => o.op === 'SSTORE') ?? calls.flatMap((o) => o.sub?.ops ?? []).find((o) => o.op === 'SSTORE');
    expect(sstore?.ex?.store).not.toBeNull();
    // The refused CALL (value above the balance) opens no sub-trace and pushes 0.
    const refused = (await call(ours.url, 'trace_replayTransaction', [sent[ours.url][8], ['vmTrace']])) as { vmTrace: VmFrame };
    const refusedCall = refused.vmTrace.ops.find((o) => o.op === 'CALL');
    expect(refusedCall?.sub).toBeNull();
    expect(refusedCall?.ex?.push).toEqual(['0x0']);
  });

  it('behavior: trace_replayTransaction stateDiff names what the prestateTracer diff names, with the new values', async () => {
    for (const i of [0, 1, nested, 3, 7]) {
      const hash = sent[ours.url][i];
      const r = (await call(ours.url, 'trace_replayTransaction', [hash, ['stateDiff', 'trace']])) as {
        stateDiff: Record<string, Record<string, unknown>>;
        trace: unknown[];
      };
      expect(r.trace.length).toBeGreaterThan(0);
      const d = (await call(ours.url, 'debug_traceTransaction', [
        hash,
        { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
      ])) as {
        pre: Record<string, Record<string, unknown>>;
        post: Record<string, { balance?: string; nonce?: number; storage?: Record<string, string> }>;
      };
      expect(Object.keys(r.stateDiff).sort(), `tx ${i}`).toEqual([...new Set([...Object.keys(d.pre), ...Object.keys(d.post)])].sort());
      for (const [a, post] of Object.entries(d.post)) {
        const diff = r.stateDiff[a] as { balance: unknown; nonce: unknown; storage: Record<string, unknown> };
        const to = (x: unknown): string | undefined =>
          x === '=' ? undefined : ((x as { '*'?: { to: string }; '+'?: string })['*']?.to ?? (x as { '+'?: string })['+']);
        if (post.balance !== undefined) expect(to(diff.balance)).toBe(post.balance);
        if (post.nonce !== undefined) expect(to(diff.nonce)).toBe('0x' + post.nonce.toString(16));
        for (const [slot, v] of Object.entries(post.storage ?? {})) expect(to(diff.storage[slot])).toBe(v);
      }
    }
    // A creation: the new account is born ("+" on every field).
    const created = (await call(ours.url, 'trace_replayTransaction', [sent[ours.url][1], ['stateDiff']])) as {
      stateDiff: Record<string, Record<string, unknown>>;
    };
    const born = created.stateDiff[traceeAddress] as Record<string, Record<string, string>>;
    expect(born.code['+']).toBe(await call(ours.url, 'eth_getCode', [traceeAddress, 'latest']));
    // Its constructor made one contract (EIP-161: a contract starts at nonce 1).
    expect(born.nonce).toEqual({ '+': '0x2' });
  });

  it('behavior: trace_replayBlockTransactions answers every transaction of the block with the types asked for', async () => {
    const rc = (await call(ours.url, 'eth_getTransactionReceipt', [sent[ours.url][nested]])) as Record<string, string>;
    const all = (await call(ours.url, 'trace_replayBlockTransactions', [rc.blockNumber, ['trace', 'vmTrace', 'stateDiff']])) as Record<
      string,
      unknown
    >[];
    expect(all.map((t) => t.transactionHash)).toEqual([sent[ours.url][nested]]);
    const one = await call(ours.url, 'trace_replayTransaction', [sent[ours.url][nested], ['trace', 'vmTrace', 'stateDiff']]);
    expect(all[0]).toEqual({ ...(one as object), transactionHash: sent[ours.url][nested] });
  });

  it('behavior: debug_traceCall with blockOverrides runs in the overridden block, as anvil does', async () => {
    // NUMBER, TIMESTAMP, COINBASE returned as three words.
    const code = '0x43600052426020524160405260606000f3';
    const at = '0x00000000000000000000000000000000000000aa';
    const cfg = {
      tracer: 'callTracer',
      stateOverrides: { [at]: { code } },
      blockOverrides: { number: '0x1234', time: '0x5678', feeRecipient: '0x00000000000000000000000000000000000000bb' },
    };
    const [o, a] = (await Promise.all(
      [ours.url, anvil.url].map((u) => call(u, 'debug_traceCall', [{ from: DEV0, to: at }, 'latest', cfg])),
    )) as Record<string, string>[];
    expect(o.output).toBe('0x' + [0x1234, 0x5678, 0xbb].map((v) => v.toString(16).padStart(64, '0')).join(''));
    expect(o.output).toBe(a.output);
    const bad = await ask(ours.url, 'debug_traceCall', [{ from: DEV0, to: at }, 'latest', { blockOverrides: { number: 'x' } }]);
    expect(bad.error?.code).toBe(-32602);
  });
});

interface VmOp {
  cost: number;
  ex: { mem: unknown; push: string[]; store: unknown; used: number } | null;
  pc: number;
  sub: VmFrame | null;
  op: string;
}
interface VmFrame {
  code: string;
  ops: VmOp[];
}
