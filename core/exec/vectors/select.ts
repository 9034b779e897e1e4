/**
 * Which cases of a vector file `xone blocktest` and `xone statetest` run, decided from the fields the scanner records
 * (jsonScan.ts) so that cases of other networks and forks are never parsed.
 */
import { TEST_FORK_ALIASES } from '../../chain/forks.ts';
import type { ScannedEntry, ScanWants } from './jsonScan.ts';
import { OTHER_FORKS } from './runFiles.ts';

/** A selection: what to record while scanning, and how many skipped cases an entry is (0 = run it). */
export interface CaseSelection {
  wants: ScanWants;
  skips(entry: ScannedEntry): number;
  skipReason?(entry: ScannedEntry): string;
}

/** The seal engine whose cases `xone blocktest` runs: the fixtures' blocks are imported with seal checks off. */
export const CHECKED_SEAL_ENGINE = 'NoProof';

/** Why a BlockchainTests case of `sealEngine` is not run (undefined: it is). */
export function sealEngineSkip(sealEngine: string | undefined): string | undefined {
  if (sealEngine === undefined || sealEngine === CHECKED_SEAL_ENGINE) return undefined;
  return `with sealEngine ${sealEngine} (this runner checks no proof-of-work seal, so it cannot tell their valid blocks from bad ones)`;
}

/** BlockchainTests: one case per entry, run when its `network` is selected and its seal engine is NoProof. */
export function blockTestSelection(networks: readonly string[]): CaseSelection {
  const otherNetwork = (entry: ScannedEntry): boolean => {
    const network = entry.strings.get('network');
    return network !== undefined && !networks.includes(network);
  };
  return {
    wants: { strings: ['network', 'sealEngine'] },
    skips: (entry) => (otherNetwork(entry) || sealEngineSkip(entry.strings.get('sealEngine')) !== undefined ? 1 : 0),
    skipReason: (entry) => (otherNetwork(entry) ? undefined : sealEngineSkip(entry.strings.get('sealEngine'))) ?? OTHER_FORKS,
  };
}

/**
 * GeneralStateTests: one case per post entry of each fork; an entry with no selected fork is skipped whole (its post
 * entries counted), one with any is parsed and the runner skips the other forks' entries itself.
 */
export function stateTestSelection(forks: readonly string[]): CaseSelection {
  return {
    wants: { keysOf: ['post'] },
    skips: (entry) => {
      const post = entry.keys.get('post');
      if (post === undefined) return 0;
      let skipped = 0;
      for (const [fork, entries] of post) {
        if (forks.includes(fork) && TEST_FORK_ALIASES[fork] !== undefined) return 0;
        skipped += entries;
      }
      return skipped;
    },
  };
}
