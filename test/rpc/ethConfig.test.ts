import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type RealNode, startRealNode } from './support/realNode.ts';

interface ForkConfigJson {
  activationTime: number;
  blobSchedule: { target: number; max: number; baseFeeUpdateFraction: number } | null;
  chainId: string;
  forkId: string;
  precompiles: Record<string, string>;
  systemContracts: Record<string, string>;
}
interface EthConfigJson {
  current: ForkConfigJson | null;
  next: ForkConfigJson | null;
  last: ForkConfigJson | null;
}

const OSAKA_PRECOMPILES = [
  'BLAKE2F',
  'BLS12_G1ADD',
  'BLS12_G1MSM',
  'BLS12_G2ADD',
  'BLS12_G2MSM',
  'BLS12_MAP_FP2_TO_G2',
  'BLS12_MAP_FP_TO_G1',
  'BLS12_PAIRING_CHECK',
  'BN254_ADD',
  'BN254_MUL',
  'BN254_PAIRING',
  'ECREC',
  'ID',
  'KZG_POINT_EVALUATION',
  'MODEXP',
  'P256VERIFY',
  'RIPEMD160',
  'SHA256',
];
const PRAGUE_SYSTEM_CONTRACTS = {
  BEACON_ROOTS_ADDRESS: '0x000f3df6d732807ef1319fb7b8bb8522d0beac02',
  CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS: '0x0000bbddc7ce488642fb579f8b00f3a590007251',
  // The dev genesis names no deposit contract: geth reports the zero address then.
  DEPOSIT_CONTRACT_ADDRESS: '0x0000000000000000000000000000000000000000',
  HISTORY_STORAGE_ADDRESS: '0x0000f90827f1c53a10cb7a02335b175320002935',
  WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS: '0x00000961ef480eb55e80d19ad83579a64c007002',
};

describe('eth_config on the dev chain (Osaka at genesis)', () => {
  let n: RealNode;
  beforeAll(async () => {
    n = await startRealNode();
  });
  afterAll(async () => {
    await n?.close();
  });

  test('default: current is Osaka from genesis; nothing is scheduled, so next and last are null', async () => {
    const c = await n.result<EthConfigJson>('eth_config');
    expect(Object.keys(c)).toEqual(['current', 'next', 'last']);
    expect(c.next).toBeNull();
    expect(c.last).toBeNull();
    const cur = c.current as ForkConfigJson;
    expect(Object.keys(cur)).toEqual(['activationTime', 'blobSchedule', 'chainId', 'forkId', 'precompiles', 'systemContracts']);
    expect(cur.activationTime).toBe(0);
    expect(cur.blobSchedule).toEqual({ target: 6, max: 9, baseFeeUpdateFraction: 5007716 });
    expect(cur.chainId).toBe('0x539');
    expect(cur.forkId).toMatch(/^0x[0-9a-f]{8}$/);
    expect(Object.keys(cur.precompiles)).toEqual(OSAKA_PRECOMPILES);
    expect(cur.precompiles.P256VERIFY).toBe('0x0000000000000000000000000000000000000100');
    expect(cur.systemContracts).toEqual(PRAGUE_SYSTEM_CONTRACTS);
  });

  test('default: the answer stays the same as blocks are sealed (no fork boundary crossed)', async () => {
    const before = await n.result<EthConfigJson>('eth_config');
    await n.mine();
    expect(await n.result<EthConfigJson>('eth_config')).toEqual(before);
  });

  test('error: parameters are refused as for any method that takes none', async () => {
    const r = await n.call('eth_config', [1]);
    expect(r.error?.code).toBe(-32602);
  });
});

describe('eth_config on a Prague chain with Osaka and BPO1 scheduled', () => {
  const OSAKA_AT = 4_000_000_000;
  const BPO1_AT = 4_100_000_000;
  let n: RealNode;
  beforeAll(async () => {
    n = await startRealNode({
      editGenesis: (g) => {
        const config = g.config as Record<string, unknown>;
        delete config.osakaTime;
        config.osakaTime = OSAKA_AT;
        config.bpo1Time = BPO1_AT;
      },
    });
  });
  afterAll(async () => {
    await n?.close();
  });

  test('default: current is Prague, next Osaka at its time, last BPO1 with its blob schedule', async () => {
    const c = await n.result<EthConfigJson>('eth_config');
    const cur = c.current as ForkConfigJson;
    const next = c.next as ForkConfigJson;
    const last = c.last as ForkConfigJson;
    expect(cur.activationTime).toBe(0);
    expect(cur.precompiles.P256VERIFY).toBeUndefined();
    expect(Object.keys(cur.precompiles)).toHaveLength(17);
    expect(cur.blobSchedule).toEqual({ target: 6, max: 9, baseFeeUpdateFraction: 5007716 });
    expect(next.activationTime).toBe(OSAKA_AT);
    expect(Object.keys(next.precompiles)).toEqual(OSAKA_PRECOMPILES);
    expect(next.systemContracts).toEqual(PRAGUE_SYSTEM_CONTRACTS);
    expect(last.activationTime).toBe(BPO1_AT);
    expect(last.blobSchedule).toEqual({ target: 10, max: 15, baseFeeUpdateFraction: 8346193 });
    // Each scheduled fork changes the fork hash (EIP-2124: the genesis hash's CRC-32 updated with each fork time).
    expect(new Set([cur.forkId, next.forkId, last.forkId]).size).toBe(3);
    for (const f of [cur, next, last]) expect(f.chainId).toBe('0x539');
  });
});
