/**
 * Foundry against `xone run --dev` as a user runs it (npm @foundry-rs/forge and cast 1.7.1, offline): `cast send
 * --unlocked` and `forge script --unlocked --broadcast` with the node-held dev accounts, `cast run` replaying a
 * transaction, and `cast rpc debug_traceTransaction` with the callTracer. forge compiles through an offline solc shim
 * over the npm solc package (test/e2e/fixtures/foundry/solc-shim.mjs); forge-std is not needed (Vm declared by hand).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevNode, type DevNode } from '../support/devNode.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const BIN = (tool: string) => join(ROOT, 'node_modules', '@foundry-rs', `${tool}-linux-amd64`, 'bin', tool);
const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const DEAD = '0x000000000000000000000000000000000000dEaD';

let node: DevNode;
let project: string;
beforeAll(async () => {
  node = await startDevNode(['--period', '1']);
  project = mkdtempSync(join(tmpdir(), 'xone-foundry-'));
  cpSync(join(import.meta.dirname, 'fixtures', 'foundry'), project, { recursive: true });
}, 90_000);
afterAll(async () => {
  await node?.stop();
  if (project) rmSync(project, { recursive: true, force: true });
});

const cast = async (...args: string[]): Promise<string> =>
  (await run(BIN('cast'), [...args, '--rpc-url', node.url], { timeout: 120_000 })).stdout.trim();

describe('Foundry with node-held accounts', () => {
  let sent = '';
  it('default: cast send --unlocked sends from a dev account and waits for the receipt', async () => {
    const out = await cast('send', '--unlocked', '--from', DEV0, DEAD, '--value', '7', '--json');
    const receipt = JSON.parse(out) as { status: string; transactionHash: string; from: string };
    expect(receipt.status).toBe('0x1');
    expect(receipt.from.toLowerCase()).toBe(DEV0);
    sent = receipt.transactionHash;
  }, 120_000);

  it('behavior: cast run replays the transaction and cast rpc traces it with the callTracer', async () => {
    expect(await cast('run', sent)).toMatch(/Transaction successfully executed/);
    const trace = JSON.parse(await cast('rpc', 'debug_traceTransaction', sent, '{"tracer":"callTracer"}')) as Record<string, string>;
    expect(trace).toMatchObject({ from: DEV0, to: DEAD.toLowerCase(), value: '0x7', type: 'CALL', gasUsed: '0x5208' });
  }, 120_000);

  it('behavior: forge script --unlocked --broadcast deploys and calls a contract', async () => {
    const { stdout } = await run(
      BIN('forge'),
      ['script', 'script/Deploy.s.sol', '--rpc-url', node.url, '--unlocked', '--sender', DEV0, '--broadcast', '--offline'],
      { cwd: project, timeout: 300_000, env: { ...process.env, XONE_SOLC_FROM: join(ROOT, 'package.json') } },
    );
    expect(stdout).toMatch(/ONCHAIN EXECUTION COMPLETE & SUCCESSFUL/);
    const address = /contract Counter (0x[0-9a-fA-F]{40})/.exec(stdout)?.[1] as string;
    expect(await cast('call', address, 'number()(uint256)')).toBe('1');
  }, 300_000);
});
