/**
 * Dev-node parity with anvil: the same calls against `xone run --dev` and anvil 1.7.1 (npm @foundry-rs/anvil, same
 * mnemonic and chain id), answers compared value for value where both chains agree by construction (accounts,
 * signatures, answer shapes) and checked for effect on ours; and a node off --dev refusing the signing methods.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type Peer } from '../../core/bench/rpc/peers.ts';
import { devGenesisJson } from '../../core/node/dev/devChain.ts';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { rpc, type RpcReply } from './support/rpcCall.ts';

const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BEEF = '0x000000000000000000000000000000000000beef';
const DEAD = '0x000000000000000000000000000000000000dead';
const TYPED = {
  types: {
    EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'chainId', type: 'uint256' },
    ],
    Mail: [
      { name: 'to', type: 'address' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  domain: { name: 'parity', chainId: 1337 },
  message: { to: DEAD, contents: 'hello' },
};

let ours: DevNode;
let anvil: Peer;
beforeAll(async () => {
  [ours, anvil] = await Promise.all([startDevNode(['--period', '1']), startAnvil(1337, 20)]);
}, 120_000);
afterAll(async () => {
  await ours?.stop();
  await anvil?.stop();
});

const call = async (url: string, method: string, params: unknown[] = []): Promise<unknown> => {
  const r: RpcReply = await rpc(url, method, params);
  if (r.error) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
  return r.result;
};
const both = async (method: string, params: unknown[] = []): Promise<[unknown, unknown]> =>
  Promise.all([call(ours.url, method, params), call(anvil.url, method, params)]);
const waitReceipt = async (url: string, hash: string): Promise<Record<string, unknown>> => {
  for (let i = 0; i < 200; i++) {
    const r = (await call(url, 'eth_getTransactionReceipt', [hash])) as Record<string, unknown> | null;
    if (r) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`no receipt for ${hash}`);
};

describe('dev accounts as anvil holds them', () => {
  it('default: eth_accounts lists the mnemonic accounts in order', async () => {
    const [o, a] = await both('eth_accounts');
    expect((o as string[]).slice(0, 10)).toEqual((a as string[]).slice(0, 10));
  });

  it('behavior: eth_sign, personal_sign, eth_signTypedData_v4 give the same signatures', async () => {
    const [s1, s2] = await both('eth_sign', [DEV0, '0xdeadbeef']);
    expect(s1).toBe(s2);
    const [p1, p2] = await both('personal_sign', ['0x68656c6c6f', DEV0]);
    expect(p1).toBe(p2);
    const [t1, t2] = await both('eth_signTypedData_v4', [DEV0, TYPED]);
    expect(t1).toBe(t2);
    const [j1, j2] = await both('eth_signTypedData_v4', [DEV0, JSON.stringify(TYPED)]);
    expect(j1).toBe(t1);
    expect(j2).toBe(t2);
  });

  it('behavior: eth_signTransaction of a fully specified transaction is the same raw transaction', async () => {
    const tx = {
      from: DEV0,
      to: DEAD,
      value: '0x1',
      nonce: '0x50',
      gas: '0x5208',
      maxFeePerGas: '0x77359400',
      maxPriorityFeePerGas: '0x1',
      chainId: '0x539',
    };
    const [o, a] = await both('eth_signTransaction', [tx]);
    expect(o).toBe(a);
  });

  it('behavior: eth_sendTransaction fills nonce, gas and fees; with automine its receipt (with blockTimestamp) exists when it answers', async () => {
    await call(ours.url, 'evm_setAutomine', [true]);
    const hash = (await call(ours.url, 'eth_sendTransaction', [{ from: DEV0, to: DEAD, value: '0x2' }])) as string;
    // Automine answers once the block is sealed (as Hardhat): the first receipt read finds it.
    const r = (await call(ours.url, 'eth_getTransactionReceipt', [hash])) as Record<string, string>;
    expect(r).not.toBeNull();
    expect(r.status).toBe('0x1');
    expect(r.gasUsed).toBe('0x5208');
    const block = (await call(ours.url, 'eth_getBlockByHash', [r.blockHash, false])) as { timestamp: string };
    expect(r.blockTimestamp).toBe(block.timestamp);
    const tx = (await call(ours.url, 'eth_getTransactionByHash', [hash])) as Record<string, string>;
    expect(tx.type).toBe('0x2');
    expect(BigInt(tx.maxFeePerGas)).toBeGreaterThanOrEqual(BigInt(tx.maxPriorityFeePerGas));
  });

  it("behavior: eth_getAccount answers geth's {balance, nonce, codeHash, storageRoot}; an unknown block as eth_getBalance", async () => {
    const [o, a] = await both('eth_getAccount', [BEEF, 'latest']);
    expect(o).toEqual(a);
    const [d1, d2] = (await both('eth_getAccount', [DEV0, 'latest'])) as Record<string, string>[];
    expect(Object.keys(d1).sort()).toEqual(Object.keys(d2).sort());
    expect(d1.balance).toBe(await call(ours.url, 'eth_getBalance', [DEV0, 'latest']));
    expect(d1.codeHash).toBe(d2.codeHash);
    const unknown = await rpc(ours.url, 'eth_getAccount', [DEV0, '0xffffff']);
    expect(unknown.error).toEqual((await rpc(ours.url, 'eth_getBalance', [DEV0, '0xffffff'])).error);
  });

  it('error: an address the node holds no key for is refused', async () => {
    const r = await rpc(ours.url, 'eth_sendTransaction', [{ from: BEEF, to: DEAD, value: '0x1' }]);
    expect(r.error?.code).toBe(-32000);
    expect(r.error?.message).toBe(`unknown account ${BEEF}`);
    expect((await rpc(ours.url, 'eth_sign', [BEEF, '0x00'])).error?.message).toBe(`unknown account ${BEEF}`);
  });
});

describe('anvil_* controls with anvil answer shapes', () => {
  it('behavior: impersonation sends from an address without a key, until stopped; auto-impersonation covers all', async () => {
    for (const url of [ours.url, anvil.url]) await call(url, 'anvil_setBalance', [BEEF, '0xde0b6b3a7640000']);
    const [i1, i2] = await both('anvil_impersonateAccount', [BEEF]);
    expect(i1).toBe(i2);
    const hash = (await call(ours.url, 'eth_sendTransaction', [{ from: BEEF, to: DEAD, value: '0x1' }])) as string;
    const r = await waitReceipt(ours.url, hash);
    expect(r.from).toBe(BEEF);
    expect(r.status).toBe('0x1');
    const [s1, s2] = await both('hardhat_stopImpersonatingAccount', [BEEF]);
    expect(s1).toBeNull();
    expect(s2).toBeNull();
    expect((await rpc(ours.url, 'eth_sendTransaction', [{ from: BEEF, to: DEAD }])).error?.code).toBe(-32000);
    const [a1, a2] = await both('anvil_autoImpersonateAccount', [true]);
    expect(a1).toBe(a2);
    const h2 = (await call(ours.url, 'eth_sendTransaction', [{ from: BEEF, to: DEAD, value: '0x1' }])) as string;
    expect((await waitReceipt(ours.url, h2)).from).toBe(BEEF);
    await both('anvil_autoImpersonateAccount', [false]);
  });

  it('behavior: getAutomine, mine with interval, next timestamp, base fee, gas limit and coinbase', async () => {
    for (const url of [ours.url, anvil.url]) await call(url, 'evm_setAutomine', [false]);
    const [g1, g2] = await both('anvil_getAutomine');
    expect(g1).toBe(false);
    expect(g2).toBe(false);
    expect((await both('hardhat_getAutomine'))[0]).toBe(false);
    const before = (await call(ours.url, 'eth_getBlockByNumber', ['latest', false])) as { number: string; timestamp: string };
    const [m1, m2] = await both('anvil_mine', ['0x3', '0x10']);
    expect(m1).toBe(m2);
    const mined = (await call(ours.url, 'eth_getBlockByNumber', ['latest', false])) as { number: string; timestamp: string };
    expect(BigInt(mined.number)).toBe(BigInt(before.number) + 3n);
    const ts = BigInt(mined.timestamp) + 1000n;
    const [n1, n2] = await both('evm_setNextBlockTimestamp', ['0x' + ts.toString(16)]);
    expect(n1).toBe(n2);
    const [b1, b2] = await both('anvil_setNextBlockBaseFeePerGas', ['0x700']);
    expect(b1).toBe(b2);
    const [l1, l2] = await both('evm_setBlockGasLimit', ['0x2faf080']);
    expect(l1).toBe(l2);
    const coinbase = '0x000000000000000000000000000000000000c0de';
    const [c1, c2] = await both('anvil_setCoinbase', [coinbase]);
    expect(c1).toBe(c2);
    await call(ours.url, 'evm_mine');
    const block = (await call(ours.url, 'eth_getBlockByNumber', ['latest', false])) as Record<string, string>;
    expect(BigInt(block.timestamp)).toBe(ts);
    expect(block.baseFeePerGas).toBe('0x700');
    expect(block.gasLimit).toBe('0x2faf080');
    expect(block.miner).toBe(coinbase);
    expect(await call(ours.url, 'eth_coinbase')).toBe(coinbase);
    await call(ours.url, 'evm_mine');
    const next = (await call(ours.url, 'eth_getBlockByNumber', ['latest', false])) as Record<string, string>;
    expect(BigInt(next.timestamp)).toBeGreaterThan(ts);
    expect(next.baseFeePerGas).toBe('0x620'); // 0x700 - 0x700 / 8 after an empty block
    expect(next.gasLimit).toBe('0x2faf080');
    await call(ours.url, 'anvil_setCoinbase', ['0x0000000000000000000000000000000000000000']);
  });

  it("behavior: anvil's other names for these methods (hardhat_mine, anvil_snapshot, anvil_setAutomine, ...) answer as anvil's do", async () => {
    for (const url of [ours.url, anvil.url]) await call(url, 'evm_setAutomine', [false]);
    const before = (await call(ours.url, 'eth_getBlockByNumber', ['latest', false])) as { number: string; timestamp: string };
    const [s1, s2] = await both('anvil_snapshot');
    expect(s1).toMatch(/^0x[0-9a-f]+$/);
    expect(s2).toMatch(/^0x[0-9a-f]+$/);
    const [m1, m2] = await both('hardhat_mine', ['0x2']);
    expect(m1).toBe(m2);
    const mined = (await call(ours.url, 'eth_getBlockByNumber', ['latest', false])) as { number: string; timestamp: string };
    expect(BigInt(mined.number)).toBe(BigInt(before.number) + 2n);
    const ts = BigInt(mined.timestamp) + 500n;
    expect(await both('anvil_setNextBlockTimestamp', [`0x${ts.toString(16)}`])).toEqual([null, null]);
    expect(await both('hardhat_setNextBlockBaseFeePerGas', ['0x800'])).toEqual([null, null]);
    const [l1, l2] = await both('anvil_setBlockGasLimit', ['0x2faf080']);
    expect(l1).toBe(l2);
    expect(await both('hardhat_setCoinbase', ['0x000000000000000000000000000000000000c0de'])).toEqual([null, null]);
    expect(await both('anvil_setLoggingEnabled', [false])).toEqual([null, null]);
    expect(await both('hardhat_setLoggingEnabled', [true])).toEqual([null, null]);
    expect(await both('hardhat_dropTransaction', [`0x${'11'.repeat(32)}`])).toEqual([null, null]);
    await call(ours.url, 'evm_mine');
    const block = (await call(ours.url, 'eth_getBlockByNumber', ['latest', false])) as Record<string, string>;
    expect(BigInt(block.timestamp)).toBe(ts);
    expect(block.baseFeePerGas).toBe('0x800');
    expect(block.miner).toBe('0x000000000000000000000000000000000000c0de');
    const offset = BigInt((await call(ours.url, 'anvil_increaseTime', ['0x0'])) as string);
    expect(BigInt((await call(ours.url, 'evm_increaseTime', ['0x0'])) as string)).toBe(offset);
    const [r1, r2] = await Promise.all([call(ours.url, 'anvil_revert', [s1]), call(anvil.url, 'anvil_revert', [s2])]);
    expect(r1).toBe(true);
    expect(r2).toBe(true);
    expect((await call(ours.url, 'eth_getBlockByNumber', ['latest', false])) as { number: string }).toMatchObject({
      number: before.number,
    });
    expect(await both('anvil_setAutomine', [true])).toEqual([null, null]);
    expect(await both('anvil_getAutomine')).toEqual([true, true]);
    await both('anvil_setAutomine', [false]);
    await call(ours.url, 'hardhat_setCoinbase', ['0x0000000000000000000000000000000000000000']);
  });

  it("behavior: anvil_nodeInfo and anvil_metadata / hardhat_metadata answer anvil's fields with this chain's values", async () => {
    const [n1, n2] = (await both('anvil_nodeInfo')) as Record<string, unknown>[];
    expect(Object.keys(n1).sort()).toEqual(Object.keys(n2).sort());
    expect(Object.keys(n1.environment as object).sort()).toEqual(Object.keys(n2.environment as object).sort());
    expect(n1.forkConfig).toEqual(n2.forkConfig);
    const head = (await call(ours.url, 'eth_getBlockByNumber', ['latest', false])) as Record<string, string>;
    expect(n1).toMatchObject({
      currentBlockNumber: head.number,
      currentBlockTimestamp: Number(head.timestamp),
      currentBlockHash: head.hash,
      hardFork: expect.stringMatching(/^[A-Za-z0-9]+$/),
      transactionOrder: 'fees',
      environment: { chainId: 1337, gasLimit: head.gasLimit, baseFee: head.baseFeePerGas },
    });
    const [m1, m2] = (await both('anvil_metadata')) as Record<string, unknown>[];
    // anvil adds its build (clientSemver, clientCommitSha); the rest is the same set of fields.
    expect(Object.keys(m1).sort()).toEqual(
      Object.keys(m2)
        .filter((k) => !k.startsWith('clientSemver') && k !== 'clientCommitSha')
        .sort(),
    );
    expect(m1).toMatchObject({ chainId: 1337, forkedNetwork: null, latestBlockHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(m1.clientVersion).toBe(await call(ours.url, 'web3_clientVersion'));
    expect(m1.instanceId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await call(ours.url, 'hardhat_metadata')).toMatchObject({ instanceId: m1.instanceId, chainId: 1337 });
  });

  it('behavior: eth_sendUnsignedTransaction sends from an address without a key or impersonation, as anvil', async () => {
    const from = '0x000000000000000000000000000000000000f00d';
    for (const url of [ours.url, anvil.url]) {
      await call(url, 'anvil_setBalance', [from, '0xde0b6b3a7640000']);
      await call(url, 'evm_setAutomine', [true]);
      const hash = (await call(url, 'eth_sendUnsignedTransaction', [{ from, to: DEAD, value: '0x2' }])) as string;
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
      const receipt = await waitReceipt(url, hash);
      expect(receipt).toMatchObject({ status: '0x1', from });
      await call(url, 'evm_setAutomine', [false]);
    }
  });

  it('behavior: anvil_dropTransaction removes a pending transaction and answers its hash, then null', async () => {
    for (const url of [ours.url, anvil.url]) {
      const hash = (await call(url, 'eth_sendTransaction', [{ from: DEV0, to: DEAD, value: '0x1' }])) as string;
      expect(await call(url, 'anvil_dropTransaction', [hash])).toBe(hash);
      expect(await call(url, 'anvil_dropTransaction', [hash])).toBeNull();
      expect(await call(url, 'eth_getTransactionByHash', [hash])).toBeNull();
    }
  });

  it('behavior: a state dump of either node loads into the other', async () => {
    const code = '0x6001600055';
    const slot = '0x' + '00'.repeat(31) + '05';
    for (const url of [ours.url, anvil.url]) {
      await call(url, 'anvil_setCode', ['0x00000000000000000000000000000000000000c1', code]);
      await call(url, 'anvil_setStorageAt', ['0x00000000000000000000000000000000000000c1', '0x1', slot]);
    }
    const [d1, d2] = (await both('anvil_dumpState')) as [string, string];
    const accounts = (d: string) =>
      (JSON.parse(gunzipSync(Buffer.from(d.slice(2), 'hex')).toString()) as { accounts: Record<string, unknown> }).accounts;
    expect(accounts(d1)['0x00000000000000000000000000000000000000c1']).toEqual(accounts(d2)['0x00000000000000000000000000000000000000c1']);
    // Cross-load into a fresh address: each node reads the other's dump.
    const move = (d: string) => {
      const json = JSON.parse(gunzipSync(Buffer.from(d.slice(2), 'hex')).toString()) as { accounts: Record<string, unknown> };
      const c1 = json.accounts['0x00000000000000000000000000000000000000c1'];
      json.accounts = { '0x00000000000000000000000000000000000000c2': c1 };
      return '0x' + gzipSync(JSON.stringify(json)).toString('hex');
    };
    expect(await call(ours.url, 'anvil_loadState', [move(d2)])).toBe(true);
    expect(await call(anvil.url, 'anvil_loadState', [move(d1)])).toBe(true);
    for (const url of [ours.url, anvil.url]) {
      expect(await call(url, 'eth_getCode', ['0x00000000000000000000000000000000000000c2', 'latest'])).toBe(code);
      expect(await call(url, 'eth_getStorageAt', ['0x00000000000000000000000000000000000000c2', '0x1', 'latest'])).toBe(slot);
    }
  });

  it('error: a revert with a custom error names its selector as anvil does, data kept', async () => {
    // mstore(0, 0xdeadbeef << 224); revert(0, 4)
    const reverter = '0x63deadbeef60e01b60005260046000fd';
    for (const url of [ours.url, anvil.url]) await call(url, 'anvil_setCode', ['0x00000000000000000000000000000000000000c3', reverter]);
    const [o, a] = await Promise.all(
      [ours.url, anvil.url].map((u) => rpc(u, 'eth_call', [{ to: '0x00000000000000000000000000000000000000c3' }, 'latest'])),
    );
    expect(o.error).toEqual(a.error);
    expect(o.error).toEqual({ code: 3, message: 'execution reverted: custom error 0xdeadbeef', data: '0xdeadbeef' });
  });

  it('error: an invalid BN254 point fails the call without revert data (geth -32000 with its text; anvil -32603)', async () => {
    const w = (n: number) => n.toString(16).padStart(64, '0');
    const g1 = w(1) + w(2);
    const offCurve = w(1) + w(3);
    for (const [to, data, text] of [
      ['06', offCurve + g1, 'point is not on curve'],
      ['07', offCurve + w(2), 'point is not on curve'],
      ['08', offCurve + '00'.repeat(128), 'point is not on curve'],
      ['06', 'ff'.repeat(32) + w(2) + g1, 'invalid fp.Element encoding'],
      ['08', g1, 'bad elliptic curve pairing size'],
    ]) {
      const tx = { to: `0x${to.padStart(40, '0')}`, data: `0x${data}` };
      const [o, a] = await Promise.all([ours.url, anvil.url].map((u) => rpc(u, 'eth_call', [tx, 'latest'])));
      expect(o.error, to).toEqual({ code: -32000, message: text });
      // anvil fails it too, without revert data (its text is revm's).
      expect(a.error, to).toEqual({ code: -32603, message: 'EVM error PrecompileError' });
    }
  });

  it('behavior: evm_setIntervalMining / anvil_setIntervalMining seal blocks on a timer until 0 stops them', async () => {
    const wasAutomine = await call(ours.url, 'anvil_getAutomine');
    const number = async () => BigInt((await call(ours.url, 'eth_blockNumber')) as string);
    const start = await number();
    expect(await both('anvil_setIntervalMining', [1])).toEqual([null, null]);
    expect(await both('anvil_getAutomine')).toEqual([false, false]);
    expect(await both('evm_setIntervalMining', [300])).toEqual([true, null]);
    // No wall-clock bound beyond a generous one: a loaded host seals later, never earlier.
    for (let i = 0; i < 600 && (await number()) < start + 2n; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await number()).toBeGreaterThanOrEqual(start + 2n);
    expect(await both('evm_setIntervalMining', [0])).toEqual([true, null]);
    await new Promise((r) => setTimeout(r, 300));
    const stopped = await number();
    await new Promise((r) => setTimeout(r, 1500));
    expect(await number()).toBe(stopped);
    for (const url of [ours.url, anvil.url]) await call(url, 'evm_setAutomine', [wasAutomine]);
  });

  it("behavior: evm_setAutomine false keeps interval mining sealing (anvil's), true replaces it; anvil_reset keeps it", async () => {
    const numberOf = async (url: string) => BigInt((await call(url, 'eth_blockNumber')) as string);
    /** Waits until `url`'s head is past `from` by 2 blocks: a loaded host seals later, never earlier. */
    const sealsOn = async (url: string, from: bigint) => {
      for (let i = 0; i < 600 && (await numberOf(url)) < from + 2n; i++) await new Promise((r) => setTimeout(r, 50));
      return (await numberOf(url)) >= from + 2n;
    };
    expect(await both('anvil_setIntervalMining', [1])).toEqual([null, null]);
    expect(await both('evm_setAutomine', [false])).toEqual([true, null]);
    expect(await both('anvil_getAutomine')).toEqual([false, false]);
    for (const url of [ours.url, anvil.url]) expect(await sealsOn(url, await numberOf(url)), url).toBe(true);
    const [r1, r2] = await both('anvil_reset');
    expect(r1).toBe(r2);
    for (const url of [ours.url, anvil.url]) expect(await sealsOn(url, 0n), url).toBe(true);
    expect(await both('evm_setAutomine', [true])).toEqual([true, null]);
    expect(await both('anvil_getAutomine')).toEqual([true, true]);
    await new Promise((r) => setTimeout(r, 300));
    const held = await Promise.all([numberOf(ours.url), numberOf(anvil.url)]);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await Promise.all([numberOf(ours.url), numberOf(anvil.url)])).toEqual(held);
  });

  it("behavior: evm_setIntervalMining takes Hardhat's [min, max] ms (anvil refuses it); a bad range is -32602", async () => {
    const wasAutomine = await call(ours.url, 'anvil_getAutomine');
    const start = BigInt((await call(ours.url, 'eth_blockNumber')) as string);
    expect(await call(ours.url, 'evm_setIntervalMining', [[200, 400]])).toBe(true);
    expect((await rpc(anvil.url, 'evm_setIntervalMining', [[200, 400]])).error?.code).toBe(-32602);
    for (let i = 0; i < 600 && BigInt((await call(ours.url, 'eth_blockNumber')) as string) < start + 2n; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(BigInt((await call(ours.url, 'eth_blockNumber')) as string)).toBeGreaterThanOrEqual(start + 2n);
    for (const bad of [
      [400, 200],
      [1, 2, 3],
      ['x', 2],
    ]) {
      const r = await rpc(ours.url, 'evm_setIntervalMining', [bad]);
      expect(r.error?.code, JSON.stringify(bad)).toBe(-32602);
    }
    expect(await call(ours.url, 'evm_setIntervalMining', [[0, 0]])).toBe(true);
    expect(await call(ours.url, 'anvil_getAutomine')).toBe(false);
    await call(ours.url, 'evm_setAutomine', [wasAutomine]);
  });

  it('behavior: anvil_metadata lists the snapshots as anvil does (id -> [block number, block hash]) until reverted', async () => {
    const [id1, id2] = (await both('evm_snapshot')) as string[];
    const [m1, m2] = (await both('anvil_metadata')) as {
      snapshots: Record<string, unknown>;
      latestBlockNumber: number;
      latestBlockHash: string;
    }[];
    expect(m1.snapshots).toEqual({ [id1]: [m1.latestBlockNumber, m1.latestBlockHash] });
    expect(m2.snapshots[id2]).toEqual([m2.latestBlockNumber, m2.latestBlockHash]);
    expect(await call(ours.url, 'evm_revert', [id1])).toBe(true);
    expect(await call(anvil.url, 'evm_revert', [id2])).toBe(true);
    expect(((await call(ours.url, 'anvil_metadata')) as { snapshots: object }).snapshots).toEqual({});
  });

  it('behavior: evm_setTime sets the next block time base; anvil_setBlockTimestampInterval spaces blocks until removed', async () => {
    const head = (await call(ours.url, 'eth_getBlockByNumber', ['latest', false])) as { timestamp: string };
    const base = BigInt(head.timestamp) + 10_000n;
    const [o1, o2] = (await both('evm_setTime', [Number(base)])) as number[];
    expect(typeof o1).toBe('number');
    expect(Math.abs(o1 - o2)).toBeLessThan(120);
    await call(ours.url, 'evm_mine');
    const set = (await call(ours.url, 'eth_getBlockByNumber', ['latest', false])) as { timestamp: string };
    // The clock has run on between the call and the seal (a loaded host: a few seconds at most).
    expect(BigInt(set.timestamp) - base).toBeGreaterThanOrEqual(0n);
    expect(BigInt(set.timestamp) - base).toBeLessThan(60n);
    expect(await both('anvil_setBlockTimestampInterval', [7])).toEqual([null, null]);
    await call(ours.url, 'evm_mine');
    await call(ours.url, 'evm_mine');
    const spaced = (await call(ours.url, 'eth_getBlockByNumber', ['latest', false])) as { timestamp: string };
    expect(BigInt(spaced.timestamp)).toBe(BigInt(set.timestamp) + 14n);
    expect(await both('anvil_removeBlockTimestampInterval')).toEqual([true, true]);
    expect(await both('anvil_removeBlockTimestampInterval')).toEqual([false, false]);
  });

  it('behavior: anvil_reset goes back to genesis with an empty pool', async () => {
    const [r1, r2] = await both('anvil_reset');
    expect(r1).toBe(r2);
    expect(await call(ours.url, 'eth_blockNumber')).toBe('0x0');
    expect(await call(ours.url, 'eth_getCode', ['0x00000000000000000000000000000000000000c2', 'latest'])).toBe('0x');
    expect(await call(ours.url, 'txpool_status')).toEqual({ pending: '0x0', queued: '0x0' });
  });

  it('behavior: snapshot ids are never reused across anvil_reset (as anvil); a snapshot from before it reverts nothing', async () => {
    const before = (await both('evm_snapshot')) as [string, string];
    await call(ours.url, 'evm_mine');
    await both('anvil_reset');
    const after = (await both('evm_snapshot')) as [string, string];
    // A test harness still holding an id from before the reset can never revert to a newer snapshot by mistake.
    expect(BigInt(after[0])).toBeGreaterThan(BigInt(before[0]));
    expect(BigInt(after[1])).toBeGreaterThan(BigInt(before[1]));
    // anvil answers -32001 and rolls its chain back to the old genesis; ours refuses the stale id and keeps the chain.
    await call(ours.url, 'evm_mine');
    expect(await call(ours.url, 'evm_revert', [before[0]])).toBe(false);
    expect(await call(ours.url, 'eth_blockNumber')).toBe('0x1');
    expect(await call(ours.url, 'evm_revert', [after[0]])).toBe(true);
    expect(await call(ours.url, 'eth_blockNumber')).toBe('0x0');
  });
});

describe('off --dev', () => {
  it('error: a node without --dev holds no keys and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xone-nodev-'));
    const genesis = join(dir, 'genesis.json');
    writeFileSync(
      genesis,
      JSON.stringify(devGenesisJson(), (_k, v: unknown) => (typeof v === 'bigint' ? '0x' + v.toString(16) : v)),
    );
    const child = spawn(
      process.execPath,
      [
        join(import.meta.dirname, '..', '..', 'bin', 'xone.mjs'),
        'run',
        '--genesis',
        genesis,
        '--datadir',
        join(dir, 'd'),
        '--http.port',
        '0',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no start:\n${out}`)), 60_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /"rpc":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
          if (m) {
            clearTimeout(t);
            resolve(m[1]);
          }
        });
      });
      expect((await rpc(url, 'eth_accounts')).result).toEqual([]);
      for (const [m, p] of [
        ['eth_sendTransaction', [{ from: DEV0, to: DEAD }]],
        ['eth_sign', [DEV0, '0x00']],
        ['personal_sign', ['0x00', DEV0]],
        ['eth_signTypedData_v4', [DEV0, TYPED]],
        ['eth_signTransaction', [{ from: DEV0, to: DEAD }]],
      ] as const) {
        const r = await rpc(url, m, [...p]);
        expect(r.error?.code, m).toBe(-32000);
        expect(r.error?.message, m).toMatch(
          /^unknown account 0xf39f.*this node holds no keys \(node-held accounts exist only with --dev\)/,
        );
      }
      expect((await rpc(url, 'anvil_impersonateAccount', [BEEF])).error?.code).toBe(-32601);
      for (const m of ['anvil_nodeInfo', 'anvil_metadata', 'hardhat_metadata']) expect((await rpc(url, m)).error?.code, m).toBe(-32601);
      expect((await rpc(url, 'eth_getAccount', [BEEF, 'latest'])).result).toMatchObject({ balance: '0x0', nonce: '0x0' });
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
