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

interface EipLookup {
  _activatedEIPsCache: number[];
  eipSetFor?: number[];
  eipSet?: Set<number>;
}

/**
 * The library answers `isActivatedEIP` with `Array.includes` over the fork's EIP list, asked several times per opcode;
 * Osaka's list is 48 long against Shanghai's 25, and a miss scans it all. The same answer from a Set, rebuilt when
 * the library replaces the list (setHardfork / setEIPs build a new array); through `this`, so `copy()` keeps working.
 */
function setBackedEipLookup(common: Common): void {
  (common as unknown as { isActivatedEIP(eip: number): boolean }).isActivatedEIP = function (this: EipLookup, eip: number): boolean {
    const list = this._activatedEIPsCache;
    if (this.eipSetFor !== list || this.eipSet === undefined) {
      this.eipSet = new Set(list);
      this.eipSetFor = list;
    }
    return this.eipSet.has(eip);
  };
}

/** The `Common` for executing a block of `fork` on chain `chainId` (CHAINID opcode answers `chainId`). */
export function commonFor(chainId: bigint, fork: Fork): Common {
  const key = `${chainId}:${fork}`;
  let common = cache.get(key);
  if (common === undefined) {
    common = createCustomCommon({ chainId: Number(chainId), name: `xone-${chainId}` }, Mainnet, { hardfork: HARDFORK[fork] });
    setBackedEipLookup(common);
    cache.set(key, common);
  }
  return common;
}
