/**
 * Every account of the head state with its code and storage, read from the state tables of one connection (its WAL
 * snapshot): anvil_dumpState's source. Accounts come in address order; storage values are full 32-byte words.
 */
import { connectionOf, type SqlHandle } from '../../store/connection.ts';
import { decodeAccount, type AccountState } from '../account.ts';

export interface DumpedAccount {
  address: Uint8Array;
  account: AccountState;
  code: Uint8Array;
  /** [slot, 32-byte value] pairs, slot order. */
  storage: Array<[Uint8Array, Uint8Array]>;
}

const word = (v: Uint8Array): Uint8Array => {
  const out = new Uint8Array(32);
  out.set(v, 32 - v.length);
  return out;
};

/** Yields the head state's accounts; the caller bounds how many it takes. */
export function* dumpAccounts(handle: SqlHandle): Generator<DumpedAccount> {
  const db = connectionOf(handle);
  const accounts = db.prepare('SELECT address, account FROM state_accounts ORDER BY address');
  const storage = db.prepare<[Uint8Array], { slot: Uint8Array; value: Uint8Array }>(
    'SELECT slot, value FROM state_storage WHERE address = ? ORDER BY slot',
  );
  const code = db.prepare<[Uint8Array], Uint8Array>('SELECT code FROM state_code WHERE hash = ?').pluck();
  for (const row of accounts.iterate() as Iterable<{ address: Uint8Array; account: Uint8Array }>) {
    const account = decodeAccount(row.account);
    yield {
      address: new Uint8Array(row.address),
      account,
      code: new Uint8Array(code.get(account.codeHash) ?? new Uint8Array(0)),
      storage: storage.all(row.address).map((s) => [new Uint8Array(s.slot), word(s.value)]),
    };
  }
}
