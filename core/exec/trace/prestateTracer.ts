/**
 * geth's prestateTracer (eth/tracers/native/prestate.go): every account and storage slot the transaction touched,
 * with its value before the transaction; with `diffMode`, `{post, pre}` limited to what changed (pre without the
 * unchanged, post with the new values; created accounts absent from pre, self-destructed ones absent from post).
 * Touched = read through the transaction's own overlay (RecordingReader), which covers what geth's opcode lookups
 * and its from/to/coinbase lookups cover. Options disableCode, disableStorage.
 */
import { EMPTY_ACCOUNT, isEmptyAccount, type AccountState } from '../../state/account.ts';
import type { StateReader } from '../../state/interface.ts';
import type { JournaledState } from '../../state/journaledState.ts';
import { bytesOfKey, keyOf } from '../../state/keys.ts';
import { bytesToHex, plainHex, toQuantity } from '../../primitives/hex.ts';

export interface PrestateTracerConfig {
  diffMode?: boolean;
  disableCode?: boolean;
  disableStorage?: boolean;
}

/** A StateReader that remembers the first value it handed out for each account and slot: the pre-state. */
export class RecordingReader implements StateReader {
  readonly accounts = new Map<string, AccountState | undefined>();
  readonly slots = new Map<string, Map<string, Uint8Array>>();

  constructor(private readonly inner: JournaledState) {}

  getAccount(address: Uint8Array): AccountState | undefined {
    const key = keyOf(address);
    const v = this.inner.getAccount(address);
    if (!this.accounts.has(key)) this.accounts.set(key, v);
    return v;
  }

  getStorage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    const v = this.inner.getStorage(address, slot);
    const key = keyOf(address);
    let m = this.slots.get(key);
    if (!m) this.slots.set(key, (m = new Map()));
    const s = keyOf(slot);
    if (!m.has(s)) m.set(s, v);
    if (!this.accounts.has(key)) this.accounts.set(key, this.inner.getAccount(address));
    return v;
  }

  getCode(codeHash: Uint8Array): Uint8Array | undefined {
    return this.inner.codeByHash(codeHash);
  }

  /** A slot an SLOAD/SSTORE named: recorded with its value before the transaction even if the overlay never read it. */
  touchSlot(address: Uint8Array, slot: Uint8Array): void {
    const m = this.slots.get(keyOf(address));
    if (m?.has(keyOf(slot))) return;
    this.getStorage(address, slot);
  }
}

interface AccountJson {
  balance?: string;
  code?: string;
  nonce?: number;
  storage?: Record<string, string>;
}

/** A storage value as geth's tracers print it: 32 bytes, left-padded. */
export const word = (v: Uint8Array): string => '0x' + plainHex(v).padStart(64, '0');
/** EIP-161: an empty account does not exist. */
export const exists = (a: AccountState | undefined | null): a is AccountState => a != null && !isEmptyAccount(a);

/**
 * The answer for one transaction: `pre` = the recorder (values before), `post` = the transaction's overlay after it
 * ran; `created` = addresses the transaction created (absent from pre when they did not exist).
 */
export function prestateResult(
  config: PrestateTracerConfig,
  recorder: RecordingReader,
  post: JournaledState,
  codeOf: (a: AccountState) => Uint8Array,
): unknown {
  const pre: Record<string, AccountJson> = {};
  const keys = [...recorder.accounts.keys()].sort();
  const preJson = (key: string): AccountJson => {
    const a = recorder.accounts.get(key) ?? EMPTY_ACCOUNT;
    const out: AccountJson = { balance: toQuantity(a.balance) };
    const code = config.disableCode ? new Uint8Array(0) : codeOf(a);
    if (code.length > 0) out.code = bytesToHex(code);
    if (a.nonce > 0n) out.nonce = Number(a.nonce);
    if (!config.disableStorage) {
      const slots = recorder.slots.get(key);
      if (slots && slots.size > 0) {
        const storage: Record<string, string> = {};
        for (const s of [...slots.keys()].sort()) storage['0x' + s] = word(slots.get(s) as Uint8Array);
        out.storage = storage;
      }
    }
    return out;
  };
  // geth drops the accounts this transaction created from the prestate (they were empty before it).
  const created = (key: string): boolean => {
    const after = post.getAccount(bytesOfKey(key));
    return !exists(recorder.accounts.get(key)) && after !== undefined && keyOf(after.codeHash) !== keyOf(EMPTY_ACCOUNT.codeHash);
  };
  if (!config.diffMode) {
    for (const key of keys) if (!created(key)) pre['0x' + key] = preJson(key);
    return pre;
  }
  const postOut: Record<string, AccountJson> = {};
  for (const key of keys) {
    const address = bytesOfKey(key);
    const before = recorder.accounts.get(key) ?? EMPTY_ACCOUNT;
    const after = post.getAccount(address);
    const p = preJson(key);
    if (after === undefined && exists(recorder.accounts.get(key))) {
      // Self-destructed (or cleaned): kept in pre, absent from post.
      pre['0x' + key] = p;
      continue;
    }
    const a = after ?? EMPTY_ACCOUNT;
    const changed: AccountJson = {};
    let modified = false;
    if (a.balance !== before.balance) {
      changed.balance = toQuantity(a.balance);
      modified = true;
    }
    if (a.nonce !== before.nonce) {
      changed.nonce = Number(a.nonce);
      modified = true;
    }
    if (!config.disableCode && keyOf(a.codeHash) !== keyOf(before.codeHash)) {
      changed.code = bytesToHex(codeOf(a));
      modified = true;
    }
    if (!config.disableStorage) {
      const slots = recorder.slots.get(key);
      const preStorage: Record<string, string> = {};
      const postStorage: Record<string, string> = {};
      for (const s of [...(slots?.keys() ?? [])].sort()) {
        const was = slots?.get(s) as Uint8Array;
        const now = post.getStorage(address, bytesOfKey(s));
        if (Buffer.compare(Buffer.from(was), Buffer.from(now)) === 0) continue;
        modified = true;
        if (was.length > 0) preStorage['0x' + s] = word(was);
        if (now.length > 0) postStorage['0x' + s] = word(now);
      }
      if (Object.keys(preStorage).length > 0) p.storage = preStorage;
      else delete p.storage;
      if (Object.keys(postStorage).length > 0) changed.storage = postStorage;
    }
    if (!modified) continue;
    postOut['0x' + key] = changed;
    if (!created(key)) pre['0x' + key] = p;
  }
  return { post: postOut, pre };
}
