/**
 * The BLS12-381 backends of the EIP-2537 precompiles (decision 0034): a thread answers on @noble/curves until
 * mcl-wasm has loaded (started by its first BLS call, not at module load), then on mcl-wasm, with the same bytes.
 */
import { Address } from '@ethereumjs/util';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { describe, expect, it } from 'vitest';
import { blsBackend, loadMcl } from '../../core/exec/evm/precompileCrypto.ts';
import { EvmHost } from '../../core/exec/evmHost.ts';
import type { BlockEnv } from '../../core/exec/types.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { JournaledState } from '../../core/state/journaledState.ts';
import { MemoryState } from '../../core/state/memoryState.ts';

const G1ADD = hexToBytes('0x000000000000000000000000000000000000000b');
const CALLER = hexToBytes('0x00000000000000000000000000000000000000e0');
const ENV: BlockEnv = {
  chainId: 1337n,
  fork: 'Osaka',
  number: 1n,
  timestamp: 1_700_000_000n,
  coinbase: new Uint8Array(20),
  gasLimit: 30_000_000n,
  difficulty: 0n,
  prevRandao: new Uint8Array(32),
  baseFee: 7n,
  blobBaseFee: 1n,
  blockHash: () => undefined,
};

/** An EIP-2537 G1 point: x and y, each a 48-byte field element left-padded to 64 bytes. */
function g1(point: { x: bigint; y: bigint }): string {
  return [point.x, point.y].map((c) => c.toString(16).padStart(128, '0')).join('');
}

async function g1Add(input: string): Promise<{ gas: bigint; out: string; error?: string }> {
  const state = new JournaledState(new MemoryState());
  const host = new EvmHost(1337n, 'Osaka', state);
  const block = host.bind(state, ENV);
  const r = await host.evm.runCall({
    block: block as Parameters<typeof host.evm.runCall>[0]['block'],
    caller: new Address(CALLER),
    origin: new Address(CALLER),
    to: new Address(G1ADD),
    data: hexToBytes(`0x${input}`),
    gasLimit: 100_000n,
  });
  return { gas: r.execResult.executionGasUsed, out: bytesToHex(r.execResult.returnValue), error: r.execResult.exceptionError?.error };
}

describe('BLS12-381 precompile backends (EIP-2537, decision 0034)', () => {
  it('default: G1ADD of the generator to itself is 2G on @noble/curves first and on mcl-wasm once loaded', async () => {
    const G = bls12_381.G1.Point.BASE;
    const input = g1(G.toAffine()) + g1(G.toAffine());
    const expected = `0x${g1(G.double().toAffine())}`;
    expect(blsBackend()).toBe('noble');
    const first = await g1Add(input);
    expect(first).toEqual({ gas: 375n, out: expected, error: undefined });
    await loadMcl();
    expect(blsBackend()).toBe('mcl-wasm');
    expect(await g1Add(input)).toEqual(first);
  });

  it('error: a point off the curve fails the call with all its gas used', async () => {
    const G = bls12_381.G1.Point.BASE.toAffine();
    const bad = g1({ x: G.x, y: G.y + 1n }) + g1(G);
    const r = await g1Add(bad);
    expect(r.error).toBeDefined();
    expect(r.gas).toBe(100_000n);
  });
});
