/**
 * The Parity `stateDiff` of one transaction (OpenEthereum/Erigon's trace_replay* "stateDiff" type): every account
 * whose balance, nonce, code or storage the transaction changed, each field as "=" (unchanged), {"+": new} (the
 * account was born), {"-": old} (it died) or {"*": {from, to}}; storage lists only the slots that changed. Built
 * from the same pre-state recording as the prestateTracer (what the transaction read, first values) and its overlay
 * after it ran. Accounts and slots in key order, as OpenEthereum's BTreeMap gives them.
 */
import { EMPTY_ACCOUNT, type AccountState } from '../../state/account.ts';
import type { JournaledState } from '../../state/journaledState.ts';
import { bytesOfKey, keyOf } from '../../state/keys.ts';
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';
import { exists, word, type RecordingReader } from './prestateTracer.ts';

type Delta = '=' | { '+': string } | { '-': string } | { '*': { from: string; to: string } };

interface AccountDiff {
  balance: Delta;
  code: Delta;
  nonce: Delta;
  storage: Record<string, Delta>;
}

const EMPTY_CODE_KEY = keyOf(EMPTY_ACCOUNT.codeHash);

function delta(from: string, to: string): Delta {
  return from === to ? '=' : { '*': { from, to } };
}

/** `codeOf` reads code by hash (the overlay holds code the transaction deployed). */
export function parityStateDiff(
  recorder: RecordingReader,
  post: JournaledState,
  codeOf: (codeHash: Uint8Array) => Uint8Array,
): Record<string, AccountDiff> {
  const out: Record<string, AccountDiff> = {};
  const code = (a: AccountState): string => bytesToHex(keyOf(a.codeHash) === EMPTY_CODE_KEY ? new Uint8Array(0) : codeOf(a.codeHash));
  for (const key of [...recorder.accounts.keys()].sort()) {
    const address = bytesOfKey(key);
    const before = recorder.accounts.get(key);
    const after = post.getAccount(address);
    const slots = recorder.slots.get(key);
    const slotKeys = [...(slots?.keys() ?? [])].sort();
    const was = exists(before);
    const is = exists(after);
    if (!was && !is) continue;
    const storage: Record<string, Delta> = {};
    if (!was || !is) {
      // Born or died: every field is the new (or old) value; storage lists the slots that are non-zero on that side.
      const a = (is ? after : before) as AccountState;
      const mark = (v: string): Delta => (is ? { '+': v } : { '-': v });
      for (const s of slotKeys) {
        const v = is ? post.getStorage(address, bytesOfKey(s)) : (slots?.get(s) as Uint8Array);
        if (v.length > 0 && v.some((b) => b !== 0)) storage['0x' + s] = mark(word(v));
      }
      out['0x' + key] = { balance: mark(toQuantity(a.balance)), code: mark(code(a)), nonce: mark(toQuantity(a.nonce)), storage };
      continue;
    }
    let changed = false;
    for (const s of slotKeys) {
      const from = word(slots?.get(s) as Uint8Array);
      const to = word(post.getStorage(address, bytesOfKey(s)));
      if (from === to) continue;
      storage['0x' + s] = { '*': { from, to } };
      changed = true;
    }
    const balance = delta(toQuantity(before.balance), toQuantity(after.balance));
    const nonce = delta(toQuantity(before.nonce), toQuantity(after.nonce));
    const codeDelta = keyOf(before.codeHash) === keyOf(after.codeHash) ? '=' : delta(code(before), code(after));
    if (!changed && balance === '=' && nonce === '=' && codeDelta === '=') continue;
    out['0x' + key] = { balance, code: codeDelta, nonce, storage };
  }
  return out;
}
