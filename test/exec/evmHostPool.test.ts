/**
 * eth_call on EVMs lent by a thread's EvmHostPool, against a real datadir (the dev chain, Osaka): a reused EVM must
 * answer exactly as a new one, with nothing of an earlier call (storage, transient storage, warm slots, overrides)
 * left behind, and an EVM stopped by an exception must not be lent again.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, callEnvironmentAt, estimateGas, type CallEnvironment } from '../../core/exec/call/index.ts';
import { setStepWatch } from '../../core/exec/evm/fastInterpreter.ts';
import { EvmHostPool } from '../../core/exec/evmHostPool.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { JournaledState } from '../../core/state/journaledState.ts';
import { openReadOnly, type ReadOnlyChainStore } from '../../core/store/index.ts';
import { LOOP, SLOW_LOOP, VIEW, makeChainDir, type ChainDir } from '../rpcPool/support/chainDir.ts';

/**
 * Returns [slot 0 as it found it, transient slot 0 as it found it, BALANCE(0xee..ee)], having set slot 0 to 7 and
 * transient slot 0 to 1: a second run that sees 7 or 1 saw the first run's writes.
 */
const PROBE_CODE = hexToBytes('0x5f5c60015f5d5f5460075f555f5260205273' + 'ee'.repeat(20) + '3160405260605ff3');
const PROBE = hexToBytes('0x' + '77'.repeat(20));
const RICH = '0x' + 'ee'.repeat(20);
const word = (n: bigint): string => n.toString(16).padStart(64, '0');
const probeAnswer = (slot: bigint, transient: bigint, balance: bigint): string => `0x${word(slot)}${word(transient)}${word(balance)}`;
const withProbe = (extra: Record<string, { balance?: bigint; stateDiff?: Map<string, Uint8Array> }> = {}) =>
  new Map<string, { code?: Uint8Array; balance?: bigint; stateDiff?: Map<string, Uint8Array> }>([
    [bytesToHex(PROBE), { code: PROBE_CODE, ...(extra[bytesToHex(PROBE)] ?? {}) }],
    ...Object.entries(extra).filter(([a]) => a !== bytesToHex(PROBE)),
  ]);

let dir: ChainDir;
let reader: ReadOnlyChainStore;
let env: CallEnvironment;

beforeAll(async () => {
  dir = await makeChainDir('hostpool');
  reader = openReadOnly(dir.datadir);
  env = callEnvironmentAt(reader, dir.genesis.config, Number(dir.head.number));
});
afterAll(() => {
  reader?.close();
  if (dir) rmSync(dir.datadir, { recursive: true, force: true });
});

describe('eth_call on EVMs reused through an EvmHostPool', { timeout: 60_000 }, () => {
  it('default: a host given back is the one lent next for the same chain and fork', () => {
    const hosts = new EvmHostPool();
    const state = new JournaledState(env.state);
    const a = hosts.take(1337n, 'Osaka', state);
    const b = hosts.take(1337n, 'Osaka', state);
    expect(b).not.toBe(a);
    hosts.give(a);
    expect(hosts.take(1337n, 'Osaka', state)).toBe(a);
    expect(hosts.take(1337n, 'Prague', state)).not.toBe(a);
  });

  it('behavior: a reused EVM sees none of the earlier call: storage, transient storage, warm slots and overrides', async () => {
    const hosts = new EvmHostPool();
    const fresh = await call({ to: PROBE }, env, { overrides: withProbe() });
    expect(bytesToHex(fresh.returnData)).toBe(probeAnswer(0n, 0n, 0n));
    const first = await call({ to: PROBE }, env, { overrides: withProbe(), hosts });
    const taken: unknown[] = [];
    const take = hosts.take.bind(hosts);
    hosts.take = (...args) => {
      const h = take(...args);
      taken.push(h);
      return h;
    };
    // Overrides of this call only: the slot, and the balance the probe reads.
    const overridden = await call({ to: PROBE }, env, {
      overrides: withProbe({
        [bytesToHex(PROBE)]: { stateDiff: new Map([['0x' + '00'.repeat(32), hexToBytes('0x05')]]) },
        [RICH]: { balance: 1_000n },
      }),
      hosts,
    });
    const again = await call({ to: PROBE }, env, { overrides: withProbe(), hosts });
    expect(taken).toHaveLength(2);
    expect(taken[1]).toBe(taken[0]);
    expect(bytesToHex(first.returnData)).toBe(probeAnswer(0n, 0n, 0n));
    expect(bytesToHex(overridden.returnData)).toBe(probeAnswer(5n, 0n, 1_000n));
    expect(bytesToHex(again.returnData)).toBe(probeAnswer(0n, 0n, 0n));
    // Cold slot and account again (EIP-2929), as on a new EVM.
    expect(first.gasUsed).toBe(fresh.gasUsed);
    expect(again.gasUsed).toBe(fresh.gasUsed);
    // Without the code override the address has no code: the override did not stay in the state either.
    expect(bytesToHex((await call({ to: PROBE }, env, { hosts })).returnData)).toBe('0x');
  });

  it('behavior: an EVM stopped by its interrupt is not lent again; the next call answers as usual', async () => {
    const hosts = new EvmHostPool();
    await call({ to: VIEW }, env, { hosts });
    const lent: unknown[] = [];
    const take = hosts.take.bind(hosts);
    hosts.take = (...args) => {
      const h = take(...args);
      lent.push(h);
      return h;
    };
    await expect(call({ to: LOOP }, env, { hosts, interrupt: { aborted: true } })).rejects.toMatchObject({ code: 'CALL_INTERRUPTED' });
    await expect(call({ to: LOOP }, env, { hosts, timeoutMs: 50 })).rejects.toMatchObject({ code: 'CALL_TIMEOUT' });
    const after = await call({ to: VIEW }, env, { hosts });
    expect(bytesToHex(after.returnData)).toBe('0x' + word(42n));
    expect(lent).toHaveLength(3);
    expect(lent[1]).not.toBe(lent[0]);
    expect(lent[2]).not.toBe(lent[1]);
    expect(lent[2]).not.toBe(lent[0]);
  });

  it("behavior: a host given back keeps no clock check of its call (a later job on it is not stopped by that call's deadline)", async () => {
    const hosts = new EvmHostPool();
    await call({ to: VIEW }, env, { hosts, timeoutMs: 1 });
    const host = hosts.take(1337n, 'Osaka', new JournaledState(env.state));
    expect(setStepWatch(host.evm, undefined)).toBeUndefined();
  });

  it('behavior: concurrent calls on one pool each get their own EVM; estimateGas reuses them across its runs', async () => {
    const hosts = new EvmHostPool();
    const runs = await Promise.all([0, 1, 2, 3].map(() => call({ to: PROBE }, env, { overrides: withProbe(), hosts })));
    for (const r of runs) expect(bytesToHex(r.returnData)).toBe(probeAnswer(0n, 0n, 0n));
    const pooled = await estimateGas({ to: PROBE }, env, { overrides: withProbe(), hosts });
    expect(pooled).toBe(await estimateGas({ to: PROBE }, env, { overrides: withProbe() }));
  });
});

describe('the interrupt check of a call', { timeout: 60_000 }, () => {
  it('behavior: runs after every call the code makes, not only every 1,024 steps (a precompile runs no steps)', async () => {
    // SLOW_LOOP: 7 steps and one BLS pairing (70,300 gas, milliseconds) per round; 600,000 gas is ~8 rounds, ~60
    // steps, which a check every 1,024 steps would never look at.
    let checks = 0;
    const interrupt = {
      get aborted(): boolean {
        checks++;
        return false;
      },
    };
    await call({ to: SLOW_LOOP, gas: 600_000n }, env, { interrupt, timeoutMs: 60_000 });
    expect(checks).toBeGreaterThanOrEqual(7);
  });
});
