import { closeSync, openSync, readdirSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Transaction } from 'ethers';
import { CORE_ERRORS, type CoreErrorRow, RPC_ERRORS, RpcError, toWireError } from '../../core/rpc/errors.ts';
import { CoreError, type CoreErrorCode, XoneError } from '../../core/errors.ts';
import { StateError } from '../../core/state/errors.ts';
import { connectionOf } from '../../core/store/connection.ts';
import { openReadOnly, StoreResultLimitError, StoreTimeoutError } from '../../core/store/index.ts';
import { FRAME_HEADER_BYTES } from '../../core/store/segment/frame.ts';
import { SEGMENTS_DIR, segmentPath } from '../../core/store/segment/segmentFiles.ts';
import { ADDRESSES, type FixtureChain, Sender, buildFixtureChain } from './support/fixtureChain.ts';
import { type RealNode, startRealNode } from './support/realNode.ts';

/** The rows of the markdown table that follows `heading` in docs/errors.md, split into trimmed cells. */
function docTable(heading: string): string[][] {
  const md = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const section = md.split(/^## /m).find((s) => s.startsWith(heading)) ?? '';
  return section
    .split('\n')
    .filter((l) => /^\|\s*`[A-Z_]+`\s*\|/.test(l))
    .map((l) => l.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|')));
}

describe('error table', () => {
  test('default: docs/errors.md lists exactly the rows of RPC_ERRORS', () => {
    const rows = docTable('# JSON-RPC error codes').map((c) => ({
      name: c[1].slice(1, -1),
      code: Number(c[2]),
      message: c[3].slice(1, -1),
      httpStatus: Number(c[4]),
      when: c[5],
    }));
    const table = Object.entries(RPC_ERRORS).map(([name, e]) => ({
      name,
      code: e.code,
      message: e.message,
      httpStatus: e.httpStatus,
      when: e.when,
    }));
    expect(rows).toEqual(table);
  });

  test('default: docs/errors.md "Core errors" lists exactly the rows of CORE_ERRORS', () => {
    const rows = docTable('Core errors').map((c) => ({ code: c[1].slice(1, -1), rpc: c[2].slice(1, -1), message: c[3], when: c[4] }));
    expect(rows).toEqual(Object.entries(CORE_ERRORS).map(([code, r]) => ({ code, rpc: r.rpc, message: r.message, when: r.when })));
  });

  test('default: no dead rows: every core code is raised by some layer, every wire row by the server or a raised core code', () => {
    const root = new URL('../../core/', import.meta.url);
    const sources = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.startsWith('bench/'))
      .map((f) => ({ file: f.replaceAll('\\', '/'), text: readFileSync(new URL(f, root), 'utf8') }));
    // The two tables themselves do not count: core/errors.ts lists the codes, core/rpc/errors.ts maps them.
    const outsideTables = sources.filter((s) => s.file !== 'errors.ts' && s.file !== 'rpc/errors.ts');
    // A core code is raised as the first argument of an error's constructor or a helper: `(... 'CODE'`.
    const raised = Object.keys(CORE_ERRORS).filter((c) => outsideTables.some((s) => new RegExp(`\\(\\s*'${c}'`).test(s.text)));
    expect(raised).toEqual(Object.keys(CORE_ERRORS));
    // A wire row is named by the code that produces it (quoted, or RPC_ERRORS.NAME; in core/rpc/errors.ts only its
    // helpers count), or it is the row of a core code that is raised.
    const table = sources.find((s) => s.file === 'rpc/errors.ts')?.text ?? '';
    const helpers = table.split('export const RPC_ERRORS')[0] + (table.split('satisfies Record<string, RpcErrorEntry>;')[1] ?? '');
    const live = Object.keys(RPC_ERRORS).filter(
      (n) =>
        outsideTables.some((s) => s.text.includes(`'${n}'`) || s.text.includes(`RPC_ERRORS.${n}`)) ||
        new RegExp(`RpcError\\('${n}'|RPC_ERRORS\\.${n}\\b`).test(helpers) ||
        Object.values(CORE_ERRORS).some((r: CoreErrorRow) => r.rpc === n),
    );
    expect(live).toEqual(Object.keys(RPC_ERRORS));
  });

  test('behavior: the core table is total over CoreErrorCode (a missing code does not compile)', () => {
    // @ts-expect-error a table without STORE_RESULT_LIMIT (or any other code) is not a Record<CoreErrorCode, ...>
    const partial: Record<CoreErrorCode, CoreErrorRow> = { EXECUTION_REVERTED: CORE_ERRORS.EXECUTION_REVERTED };
    expect(Object.keys(partial)).toHaveLength(1);
  });

  test('behavior: toWireError keeps RpcError rows, maps every core code, hides everything else', () => {
    expect(toWireError(new RpcError('TIMEOUT'))).toEqual({ code: -32002, message: 'request timed out' });
    expect(toWireError(new CoreError('TXPOOL_REJECTED', 'already known'))).toEqual({ code: -32000, message: 'already known' });
    expect(toWireError(new CoreError('EXECUTION_REVERTED', 'execution reverted', { data: Uint8Array.of(1, 2) }))).toEqual({
      code: 3,
      message: 'execution reverted',
      data: '0x0102',
    });
    expect(toWireError(new CoreError('EVM_TIMEOUT', 'execution aborted (timeout = 5s)'))).toEqual({
      code: -32000,
      message: 'execution aborted (timeout = 5s)',
    });
    expect(toWireError(new StateError('STATE_UNAVAILABLE', 'state at block 9 is not available'))).toEqual({
      code: -32000,
      message: 'state at block 9 is not available',
    });
    // The store's own errors, as the store throws them.
    expect(toWireError(new StoreTimeoutError('getLogs', 2001, 2000, 640))).toEqual({ code: -32002, message: 'request timed out' });
    expect(toWireError(new StoreResultLimitError('getLogs', 10_000, 10_001))).toEqual({
      code: -32005,
      message: 'query returned more than 10000 results',
    });
    // Every core code has a row whose wire code is its RPC row's.
    for (const [code, row] of Object.entries(CORE_ERRORS))
      expect(toWireError(new XoneError(code, 'm')).code).toBe(RPC_ERRORS[row.rpc].code);
    expect(toWireError(new XoneError('SOMETHING_INTERNAL', 'db row 7 corrupt'))).toEqual({ code: -32603, message: 'internal error' });
    expect(toWireError(new StateError('STATE_CORRUPT', 'rebuilt root differs'))).toEqual({ code: -32603, message: 'internal error' });
    const e = new Error('secret path /var/x');
    expect(JSON.stringify(toWireError(e))).not.toContain('secret');
    expect(toWireError('a string')).toEqual({ code: -32603, message: 'internal error' });
  });
});

/** A node off dev mode (no evm_*, anvil_*), over the fixture chain (sealed in-process, as evm_mine would). */
let h: RealNode;
let f: FixtureChain;
beforeAll(async () => {
  h = await startRealNode({ dev: false });
  f = await buildFixtureChain(h);
});
afterAll(() => h?.close());

describe('error paths on the wire', () => {
  test('error: -32602 names the argument with geth wording', async () => {
    expect((await h.call('debug_getRawBlock', ['2'])).error).toEqual({
      code: -32602,
      message: 'invalid argument 0: hex string without 0x prefix',
    });
    expect((await h.call('debug_getRawTransaction', ['1'.repeat(64)])).error).toEqual({
      code: -32602,
      message: 'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash',
    });
    expect((await h.call('eth_getBalance', [ADDRESSES[0].slice(0, 40), 'latest'])).error).toEqual({
      code: -32602,
      message: 'invalid argument 0: hex string has length 38, want 40 for common.Address',
    });
    expect((await h.call('eth_getBlockByNumber', ['0x01', false])).error?.message).toBe(
      'invalid argument 0: hex number with leading zero digits',
    );
    expect((await h.call('eth_getBlockByNumber', ['0x1'])).error?.message).toBe('missing value for required argument 1');
    expect((await h.call('eth_getBlockByNumber', ['0x1', false, 3])).error?.message).toBe('too many arguments, want at most 2');
    expect((await h.call('eth_getBlockByNumber', ['0x1', 'yes'])).error?.message).toBe(
      'invalid argument 1: json: cannot unmarshal string into Go value of type bool',
    );
    expect((await h.call('eth_getBlockByNumber', ['0x' + 'f'.repeat(17), false])).error?.message).toBe(
      'invalid argument 0: hex number > 64 bits',
    );
    expect((await h.call('eth_call', [{ to: f.answer, gas: '12' }])).error?.message).toBe(
      'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go struct field TransactionArgs.gas of type hexutil.Uint64',
    );
    const r = await h.post({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: { a: 1 } });
    expect(r.json).toMatchObject({ error: { code: -32602, message: 'non-array args' } });
  });

  test('error: code 3 execution reverted with reason and data', async () => {
    const r = await h.call('eth_call', [{ to: f.reverter }, 'latest']);
    expect(r.error?.code).toBe(3);
    expect(r.error?.message).toBe('execution reverted: nope');
    // Error(string) of "nope": selector, offset, length, the padded text.
    expect(r.error?.data).toBe(
      '0x08c379a0' + (0x20).toString(16).padStart(64, '0') + '4'.padStart(64, '0') + Buffer.from('nope').toString('hex').padEnd(64, '0'),
    );
    expect((await h.call('eth_estimateGas', [{ to: f.reverter }])).error?.code).toBe(3);
  });

  test("error: eth_estimateGas answers as geth's estimator: the allowance only when gas runs out, else the EVM's words alone", async () => {
    const looper = '0x00000000000000000000000000000000000000aa';
    const loopForever = { [looper]: { code: '0x5b600056' } }; // JUMPDEST PUSH1 0 JUMP
    // The allowance is the lowest of the gas cap, the block's gas limit and the fork's transaction cap (EIP-7825).
    expect((await h.call('eth_estimateGas', [{ to: looper }, 'latest', loopForever])).error).toEqual({
      code: -32000,
      message: expect.stringMatching(/^gas required exceeds allowance \(\d+\)$/),
    });
    // A BN254 pairing input that is not a multiple of 192 bytes fails at every gas limit.
    const pairing = '0x0000000000000000000000000000000000000008';
    expect((await h.call('eth_estimateGas', [{ to: pairing, data: '0x01' }])).error).toEqual({
      code: -32000,
      message: 'bad elliptic curve pairing size',
    });
    expect((await h.call('eth_estimateGas', [{ to: looper }, 'latest', { [looper]: { code: '0xfe' } }])).error).toEqual({
      code: -32000,
      message: 'invalid opcode',
    });
  });

  test('error: -32000 tx pool and missing header messages', async () => {
    const mined = f.blocks.get(2)?.[0];
    expect((await h.call('eth_sendRawTransaction', [mined?.raw])).error).toEqual({
      code: -32000,
      message: `nonce too low: address ${Transaction.from(mined?.raw).from}, tx: 0 state: 2`,
    });
    const pending = await new Sender(h).send({ from: 2, to: ADDRESSES[0], value: 1n, tip: 1n });
    expect((await h.call('eth_sendRawTransaction', [pending.raw])).error).toEqual({ code: -32000, message: 'already known' });
    expect((await h.call('eth_getBalance', [ADDRESSES[0], '0x99'])).error).toEqual({ code: -32000, message: 'header not found' });
    expect((await h.call('eth_getFilterChanges', ['0x1234'])).error).toEqual({ code: -32000, message: 'filter not found' });
  });

  test('error: dev-only methods are -32601 off dev mode', async () => {
    expect((await h.call('evm_mine')).error).toEqual({ code: -32601, message: 'the method evm_mine does not exist/is not available' });
    expect((await h.call('anvil_setBalance', [ADDRESSES[0], '0x1'])).error?.code).toBe(-32601);
    expect((await h.call('hardhat_setBalance', [ADDRESSES[0], '0x1'])).error?.code).toBe(-32601);
  });

  test('error: eth_subscribe over HTTP is refused', async () => {
    expect((await h.call('eth_subscribe', ['newHeads'])).error).toEqual({ code: -32601, message: 'notifications not supported' });
  });
});

describe('a dev node, then the same datadir with a corrupted record', () => {
  let dev: RealNode;
  let datadir: string;
  beforeAll(async () => {
    dev = await startRealNode();
    datadir = dev.datadir;
  });
  afterAll(async () => {
    await dev?.close({ keepDatadir: true });
    rmSync(datadir, { recursive: true, force: true });
  });

  test('behavior: the dev-only methods work in dev mode', async () => {
    expect((await dev.call('evm_mine')).result).toBe('0x0');
    expect((await dev.call('eth_blockNumber')).result).toBe('0x1');
    expect((await dev.call('hardhat_setBalance', [ADDRESSES[0], '0x1'])).result).toBe(true);
    expect((await dev.call('eth_getBalance', [ADDRESSES[0], 'latest'])).result).toBe('0x1');
    expect((await dev.call('evm_snapshot')).result).toMatch(/^0x[0-9a-f]+$/);
  });

  test('error: -32603 for an unexpected failure (a stored body that fails its CRC), without detail; the rest is served', async () => {
    await dev.close({ keepDatadir: true });
    // Flip one byte inside block 1's body record; the open's reconcile checks only the last record, so it starts.
    const reader = openReadOnly(datadir);
    const row = connectionOf(reader).prepare('SELECT seg, body_off FROM blocks WHERE number = 1').get() as {
      seg: number;
      body_off: number;
    };
    reader.close();
    const fd = openSync(segmentPath(join(datadir, SEGMENTS_DIR), row.seg), 'r+');
    const at = row.body_off + FRAME_HEADER_BYTES;
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, at);
    writeSync(fd, Buffer.of(byte[0] ^ 0xff), 0, 1, at);
    closeSync(fd);
    dev = await startRealNode({ datadir });
    const r = await dev.post({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x1', true] });
    expect(r.json).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'internal error' } });
    expect(r.text).not.toMatch(/segment|crc|corrupt|\.xone/i);
    expect(((await dev.call('eth_getBlockByNumber', ['0x2', false])).result as { number: string }).number).toBe('0x2');
  });
});
