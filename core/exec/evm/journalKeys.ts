/**
 * The library Journal's warm sets (EIP-2929) keyed through Buffer's native hex encoder (decision 0027's opt-in
 * speed-ups, one EVM at a time). The Journal keys its maps by unprefixed hex strings that @noble/hashes makes in a JS
 * loop, for every account and storage access check; these replacements make the same strings with
 * `plainHex` (core/primitives/hex.ts) and touch the same maps the same way, so the Journal's other methods
 * (checkpoint, revert, cleanup, access lists) see exactly what they expect. On a 200-call callTracer trace the warm
 * checks and touches were ~5 % of the CPU (issue #15).
 */
import { plainHex } from '../../primitives/hex.ts';

type Diff = [Set<string>, Map<string, Set<string>>, Set<string>];

/** The fields of @ethereumjs/evm 10.1.3's Journal these methods use (internals.ts pins the version). */
interface JournalFields {
  journal: Map<string, Set<string>>;
  alwaysWarmJournal: Map<string, Set<string>>;
  journalDiff: [number, Diff][];
  accessList?: Map<string, Set<string>>;
  touchAccount(address: string): void;
}

interface JournalMethods {
  isWarmedAddress(this: JournalFields, address: Uint8Array): boolean;
  addWarmedAddress(this: JournalFields & JournalMethods, address: Uint8Array): void;
  isWarmedStorage(this: JournalFields, address: Uint8Array, slot: Uint8Array): boolean;
  addWarmedStorage(this: JournalFields & JournalMethods, address: Uint8Array, slot: Uint8Array): void;
  touchAddress(this: JournalFields, address: { bytes: Uint8Array }): void;
}

const METHODS: JournalMethods = {
  isWarmedAddress(address) {
    const key = plainHex(address);
    return this.journal.has(key) || this.alwaysWarmJournal.has(key);
  },
  addWarmedAddress(address) {
    const key = plainHex(address);
    if (!this.journal.has(key)) {
      this.journal.set(key, new Set());
      (this.journalDiff[this.journalDiff.length - 1] as [number, Diff])[1][0].add(key);
    }
    if (this.accessList !== undefined && !this.accessList.has(key)) this.accessList.set(key, new Set());
  },
  isWarmedStorage(address, slot) {
    const key = plainHex(address);
    const slots = this.journal.get(key);
    const always = this.alwaysWarmJournal.get(key);
    if (slots === undefined && always === undefined) return false;
    const slotKey = plainHex(slot);
    return slots?.has(slotKey) === true || always?.has(slotKey) === true;
  },
  addWarmedStorage(address, slot) {
    const key = plainHex(address);
    let slots = this.journal.get(key);
    if (slots === undefined) {
      this.addWarmedAddress(address);
      slots = this.journal.get(key) as Set<string>;
    }
    const slotKey = plainHex(slot);
    if (!slots.has(slotKey)) {
      slots.add(slotKey);
      const changed = (this.journalDiff[this.journalDiff.length - 1] as [number, Diff])[1][1];
      let set = changed.get(key);
      if (set === undefined) {
        set = new Set();
        changed.set(key, set);
      }
      set.add(slotKey);
    }
    // As the library: the address was put on the access list when it was first warmed.
    if (this.accessList !== undefined) (this.accessList.get(key) as Set<string>).add(slotKey);
  },
  touchAddress(address) {
    // The library's `address.toString().slice(2)`: the same lower-case hex.
    this.touchAccount(plainHex(address.bytes));
  },
};

/** Whether `journal` has the shape these methods were written against. */
function isJournal(journal: unknown): journal is JournalFields {
  const j = journal as Partial<JournalFields> | undefined;
  return (
    j?.journal instanceof Map && j.alwaysWarmJournal instanceof Map && Array.isArray(j.journalDiff) && typeof j.touchAccount === 'function'
  );
}

/** Puts the replacements on one EVM's journal; leaves a journal of any other shape alone (returns false). */
export function installJournalKeys(journal: unknown): boolean {
  if (!isJournal(journal)) return false;
  Object.assign(journal, METHODS);
  return true;
}
