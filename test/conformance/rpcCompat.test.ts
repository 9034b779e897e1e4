/**
 * `xone rpc-compat` over the execution-apis London suite through the CLI (the same code path a user runs), and over
 * a small suite made from it whose wrong expectations must fail with a diff.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../core/cli/main.ts';
import { listIoFiles } from '../../core/conformance/rpcCompat/index.ts';
import { conformancePath } from '../support/conformance.ts';

const DIR = conformancePath('execution-apis-london');
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** Runs `xone …` in-process and captures stdout and stderr. */
async function xone(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => out.push(String(c)) > 0);
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => err.push(String(c)) > 0);
  try {
    const code = await main(args);
    return { code, out: out.join(''), err: err.join('') };
  } finally {
    o.mockRestore();
    e.mockRestore();
    process.exitCode = undefined;
  }
}

/** The first `>>` and `<<` lines of a fixture file, parsed. */
function roundTrip(file: string): { request: Record<string, unknown>; response: Record<string, unknown> } {
  const lines = readFileSync(join(DIR, file), 'utf8').split('\n');
  const pick = (marker: string) => JSON.parse((lines.find((l) => l.startsWith(marker)) as string).slice(3)) as Record<string, unknown>;
  return { request: pick('>> '), response: pick('<< ') };
}

/** A suite folder with the fixture chain and the given .io files. */
function suite(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'xone-rpc-compat-suite-'));
  made.push(dir);
  copyFileSync(join(DIR, 'genesis.json'), join(dir, 'genesis.json'));
  copyFileSync(join(DIR, 'chain.rlp'), join(dir, 'chain.rlp'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const io = (...trips: [unknown, unknown][]): string =>
  trips.map(([req, res]) => `>> ${JSON.stringify(req)}\n<< ${JSON.stringify(res)}\n`).join('\n');

describe('xone rpc-compat', () => {
  it('default: every execution-apis London test passes', async () => {
    const count = listIoFiles(DIR).length;
    expect(count).toBe(40);
    const r = await xone('rpc-compat', '--tests', DIR);
    expect(r.out).not.toContain('FAIL');
    expect(r.out).toMatch(new RegExp(`^${count} passed, 0 failed$`, 'm'));
    expect(r.code).toBe(0);
  });

  it('default: the execution-apis Cancun suite passes but for the one case the London suite records the other way', async () => {
    // eth_getProof with storage key "0x01": the London suite (geth 1.11) answers the key as given, "0x01"; the Cancun
    // suite (geth 1.13) as a quantity, "0x1". Same request, two answers: the node keeps the London one (no regression).
    const cancun = conformancePath('execution-apis-cancun');
    const count = listIoFiles(cancun).length;
    expect(count).toBe(76);
    const r = await xone('rpc-compat', '--tests', cancun);
    const failures = r.out.split('\n').filter((l) => l.startsWith('FAIL '));
    expect(failures).toEqual(['FAIL eth_getProof/get-account-proof-with-storage']);
    expect(r.out).toContain('result.storageProof[0].key: got "0x01", want "0x1"');
    expect(r.out).toMatch(new RegExp(`^${count - 1} passed, 1 failed$`, 'm'));
  }, 120_000);

  it('behavior: several round trips per file, error messages ignored, speconly shape-only; wrong answers fail with a diff', async () => {
    const head = roundTrip('eth_blockNumber/simple-test.io');
    const chainId = roundTrip('eth_chainId/get-chain-id.io');
    const badParam = roundTrip('debug_getRawBlock/get-invalid-number.io');
    const wrongHead = `0x${(BigInt(head.response.result as string) + 1n).toString(16)}`;
    const error = badParam.response.error as { code: number; message: string };
    const dir = suite({
      'a/two-trips.io': `// two round trips\n${io([head.request, head.response], [chainId.request, chainId.response])}`,
      'a/wrong-head.io': io([head.request, { ...head.response, result: wrongHead }]),
      'b/other-message.io': io([badParam.request, { ...badParam.response, error: { ...error, message: 'some other text' } }]),
      'b/other-code.io': io([badParam.request, { ...badParam.response, error: { ...error, code: -32000 } }]),
      'c/bad-line.io': `${io([head.request, head.response])}not a message\n`,
      'd/speconly.io': `// speconly: shape only\n${io([head.request, { ...head.response, result: wrongHead }])}`,
    });
    const r = await xone('rpc-compat', '--tests', dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^3 passed, 3 failed$/m);
    const failed = [...r.out.matchAll(/^FAIL (\S+)$/gm)].map((m) => m[1]);
    expect(failed).toEqual(['a/wrong-head', 'b/other-code', 'c/bad-line']);
    expect(r.out).toContain(`result: got ${JSON.stringify(head.response.result)}, want "${wrongHead}"`);
    expect(r.out).toContain(`error.code: got ${error.code}, want -32000`);
    expect(r.out).toContain('c/bad-line.io:3: invalid test line: not a message');
  });

  it('behavior: the suite node serves eth_simulateV1 and debug_trace* (the newer suites have cases for both)', async () => {
    const call = { from: '0xc000000000000000000000000000000000000000', to: '0xc100000000000000000000000000000000000000' };
    const simReq = { jsonrpc: '2.0', id: 1, method: 'eth_simulateV1', params: [{ blockStateCalls: [{ calls: [call] }] }, 'latest'] };
    const traceReq = { jsonrpc: '2.0', id: 2, method: 'debug_traceCall', params: [call, 'latest', { tracer: 'callTracer' }] };
    const dir = suite({
      // Shapes only: the answers' hashes follow from the chain.
      'eth_simulateV1/transfer.io': `// speconly: shape\n${io([simReq, { jsonrpc: '2.0', id: 1, result: [{}] }])}`,
      'debug_traceCall/call.io': `// speconly: shape\n${io([traceReq, { jsonrpc: '2.0', id: 2, result: { ...call, type: 'CALL', gas: '0x0', gasUsed: '0x0', input: '0x', value: '0x0' } }])}`,
    });
    const r = await xone('rpc-compat', '--tests', dir);
    expect(r.out).toMatch(/^2 passed, 0 failed$/m);
  });

  it('error: a suite without genesis.json is refused with the path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xone-rpc-compat-empty-'));
    made.push(dir);
    const r = await xone('rpc-compat', '--tests', dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${join(dir, 'genesis.json')} not found`);
  });
});
