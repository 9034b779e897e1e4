import { describe, expect, test } from 'vitest';
import { forkConfigs, forkHash } from '../../core/chain/forkConfigs.ts';
import type { ChainConfig } from '../../core/chain/forks.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';

/** Hoodi (EIP-7910's sample configs): every block fork and Shanghai/Cancun at genesis, Prague at 1742999832. */
const HOODI: ChainConfig = {
  chainId: 560048n,
  forkBlocks: {
    Homestead: 0,
    TangerineWhistle: 0,
    SpuriousDragon: 0,
    Byzantium: 0,
    Constantinople: 0,
    Petersburg: 0,
    Istanbul: 0,
    Berlin: 0,
    London: 0,
  },
  forkTimes: { Shanghai: 0, Cancun: 0, Prague: 1742999832 },
  terminalTotalDifficulty: 0n,
  depositContractAddress: hexToBytes('0x00000000219ab540356cbb839cbe05303d7705fa'),
};
const HOODI_GENESIS = { hash: hexToBytes('0xbbe312868b376a3001692a646dd2d7d1e4406380dfd86b98aa8a34d1557c971b'), timestamp: 1742212800 };

const named = (list: { name: string; address: Uint8Array }[]) => Object.fromEntries(list.map((e) => [e.name, bytesToHex(e.address)]));

describe('eth_config fork configurations (EIP-7910)', () => {
  test('default: Hoodi before Prague gives the EIP sample current (Cancun) and next/last (Prague)', () => {
    const c = forkConfigs(HOODI, HOODI_GENESIS, 1742999831);
    expect(c.current?.activationTime).toBe(0);
    expect(bytesToHex(c.current!.forkId)).toBe('0xbef71d30');
    expect(c.current?.blobSchedule).toEqual({ target: 3, max: 6, baseFeeUpdateFraction: 3338477n });
    expect(named(c.current!.precompiles)).toEqual({
      BLAKE2F: '0x0000000000000000000000000000000000000009',
      BN254_ADD: '0x0000000000000000000000000000000000000006',
      BN254_MUL: '0x0000000000000000000000000000000000000007',
      BN254_PAIRING: '0x0000000000000000000000000000000000000008',
      ECREC: '0x0000000000000000000000000000000000000001',
      ID: '0x0000000000000000000000000000000000000004',
      KZG_POINT_EVALUATION: '0x000000000000000000000000000000000000000a',
      MODEXP: '0x0000000000000000000000000000000000000005',
      RIPEMD160: '0x0000000000000000000000000000000000000003',
      SHA256: '0x0000000000000000000000000000000000000002',
    });
    expect(Object.keys(named(c.current!.precompiles))).toEqual(Object.keys(named(c.current!.precompiles)).sort());
    expect(named(c.current!.systemContracts)).toEqual({ BEACON_ROOTS_ADDRESS: '0x000f3df6d732807ef1319fb7b8bb8522d0beac02' });
    expect(c.next?.activationTime).toBe(1742999832);
    expect(bytesToHex(c.next!.forkId)).toBe('0x0929e24e');
    expect(c.next?.blobSchedule).toEqual({ target: 6, max: 9, baseFeeUpdateFraction: 5007716n });
    expect(Object.keys(named(c.next!.precompiles))).toHaveLength(17);
    expect(named(c.next!.systemContracts)).toEqual({
      BEACON_ROOTS_ADDRESS: '0x000f3df6d732807ef1319fb7b8bb8522d0beac02',
      CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS: '0x0000bbddc7ce488642fb579f8b00f3a590007251',
      DEPOSIT_CONTRACT_ADDRESS: '0x00000000219ab540356cbb839cbe05303d7705fa',
      HISTORY_STORAGE_ADDRESS: '0x0000f90827f1c53a10cb7a02335b175320002935',
      WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS: '0x00000961ef480eb55e80d19ad83579a64c007002',
    });
    expect(c.last).toEqual(c.next);
  });

  test('default: at and after the last fork, current is it and next/last are null', () => {
    for (const t of [1742999832, 1800000000]) {
      const c = forkConfigs(HOODI, HOODI_GENESIS, t);
      expect(c.current?.activationTime).toBe(1742999832);
      expect(bytesToHex(c.current!.forkId)).toBe('0x0929e24e');
      expect(c.next).toBeNull();
      expect(c.last).toBeNull();
    }
  });

  test('edge: a chain before Shanghai has no current; next is Shanghai when scheduled', () => {
    const config: ChainConfig = { ...HOODI, forkTimes: { Shanghai: 2_000_000_000 } };
    const c = forkConfigs(config, HOODI_GENESIS, 1_900_000_000);
    expect(c.current).toBeNull();
    expect(c.next?.activationTime).toBe(2_000_000_000);
    expect(c.next?.blobSchedule).toBeNull();
    expect(c.next?.systemContracts).toEqual([]);
    expect(Object.keys(named(c.next!.precompiles))).toHaveLength(9);
  });

  test('edge: fork times at or before the genesis time are not in the fork hash', () => {
    const withGenesisTimes = forkHash({ ...HOODI, forkTimes: { Shanghai: 5, Cancun: HOODI_GENESIS.timestamp } }, HOODI_GENESIS, 2e9);
    expect(bytesToHex(withGenesisTimes)).toBe('0xbef71d30');
  });
});
