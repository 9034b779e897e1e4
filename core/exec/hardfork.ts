/**
 * Builds the ethereumjs `Common` (chain parameters + hardfork rules) the EVM runs under, from our fork table.
 * One instance per (chainId, fork), reused across blocks: building one parses the whole parameter table.
 */
import { type Common, createCustomCommon, Mainnet } from '@ethereumjs/common';
import type { Fork } from '../chain/forks.ts';

/** Our fork names → ethereumjs hardfork identifiers. */
const HARDFORK: Readonly<Record<Fork, string>> = {
  Frontier: 'chainstart',
  Homestead: 'homestead',
  TangerineWhistle: 'tangerineWhistle',
  SpuriousDragon: 'spuriousDragon',
  Byzantium: 'byzantium',
  Constantinople: 'constantinople',
  Petersburg: 'petersburg',
  Istanbul: 'istanbul',
  MuirGlacier: 'muirGlacier',
  Berlin: 'berlin',
  London: 'london',
  ArrowGlacier: 'arrowGlacier',
  GrayGlacier: 'grayGlacier',
  Paris: 'paris',
  Shanghai: 'shanghai',
  Cancun: 'cancun',
  Prague: 'prague',
  Osaka: 'osaka',
  BPO1: 'bpo1',
  BPO2: 'bpo2',
};

const cache = new Map<string, Common>();

/** The `Common` for executing a block of `fork` on chain `chainId` (CHAINID opcode answers `chainId`). */
export function commonFor(chainId: bigint, fork: Fork): Common {
  const key = `${chainId}:${fork}`;
  let common = cache.get(key);
  if (common === undefined) {
    common = createCustomCommon({ chainId: Number(chainId), name: `xone-${chainId}` }, Mainnet, { hardfork: HARDFORK[fork] });
    cache.set(key, common);
  }
  return common;
}
