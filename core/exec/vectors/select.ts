/**
 * Which cases of a vector file `xone blocktest` and `xone statetest` run, decided from the fields the scanner records
 * (jsonScan.ts) so that cases of other networks and forks are never parsed.
 */
import { TEST_FORK_ALIASES } from '../../chain/forks.ts';
import type { ScannedEntry, ScanWants } from './jsonScan.ts';

/** A selection: what to record while scanning, and how many skipped cases an entry is (0 = run it). */
export interface CaseSelection {
  wants: ScanWants;
  skips(entry: ScannedEntry): number;
}

/** BlockchainTests: one case per entry, run when its `network` is selected. */
export function blockTestSelection(networks: readonly string[]): CaseSelection {
  return {
    wants: { strings: ['network'] },
    skips: (entry) => {
      const network = entry.strings.get('network');
      return network !== undefined && !networks.includes(network) ? 1 : 0;
    },
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
