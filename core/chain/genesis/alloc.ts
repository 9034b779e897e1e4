/**
 * The genesis `alloc` (geth) or a test fixture's `pre`: accounts with balance, nonce, code and storage. Map keys are
 * unprefixed lower-case hex (the state layer's key convention, core/state/keys.ts), so the state can load it as is.
 */
import { GenesisError } from './errors.ts';
import { asObject, onlyKeys, parseBytes, parseUint, parseWord } from './jsonFields.ts';

export interface GenesisAccount {
  /** 20 bytes. */
  address: Uint8Array;
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  /** Slot (unprefixed hex of 32 bytes) → value as minimal bytes; zero values are dropped, as geth does. */
  storage: Map<string, Uint8Array>;
}

/** Accounts by unprefixed lower-case hex address. */
export type GenesisAlloc = Map<string, GenesisAccount>;

const ACCOUNT_KEYS = new Set(['balance', 'nonce', 'code', 'storage', 'secretKey']);

/** How strictly storage words are read: geth wants exact 32-byte hashes; test fixtures write short hex. */
export interface ParseAllocOptions {
  looseStorage?: boolean;
  /** Key path prefix for errors ("alloc" or "pre"). */
  where?: string;
}

function trim(word: Uint8Array): Uint8Array {
  let i = 0;
  while (i < word.length && word[i] === 0) i++;
  return word.subarray(i);
}

/** Parses an alloc/pre object, checking every account field. */
export function parseAlloc(value: unknown, { looseStorage = false, where = 'alloc' }: ParseAllocOptions = {}): GenesisAlloc {
  const obj = asObject(value, where);
  const alloc: GenesisAlloc = new Map();
  for (const [rawAddress, rawAccount] of Object.entries(obj)) {
    const addrKey = `${where}.${rawAddress}`;
    // geth accepts addresses with or without 0x.
    const address = parseBytes(rawAddress.startsWith('0x') || rawAddress.startsWith('0X') ? rawAddress : '0x' + rawAddress, addrKey, 20);
    const hex = Buffer.from(address).toString('hex');
    if (alloc.has(hex)) throw new GenesisError('GENESIS_BAD_FIELD', `genesis: ${addrKey}: address appears twice`, { key: addrKey });
    const acct = asObject(rawAccount, addrKey);
    onlyKeys(acct, ACCOUNT_KEYS, addrKey);
    if (acct.balance === undefined)
      throw new GenesisError('GENESIS_MISSING_FIELD', `genesis: ${addrKey}.balance is required`, { key: `${addrKey}.balance` });
    const storage = new Map<string, Uint8Array>();
    if (acct.storage !== undefined && acct.storage !== null) {
      for (const [k, v] of Object.entries(asObject(acct.storage, `${addrKey}.storage`))) {
        const what = `${addrKey}.storage.${k}`;
        const slot = looseStorage ? parseWord(k, what) : parseBytes(k, what, 32);
        const word = looseStorage ? parseWord(v, what) : parseBytes(v, what, 32);
        const slotHex = Buffer.from(slot).toString('hex');
        if (storage.has(slotHex)) throw new GenesisError('GENESIS_BAD_FIELD', `genesis: ${what}: slot appears twice`, { key: what });
        const trimmed = trim(word);
        if (trimmed.length > 0) storage.set(slotHex, trimmed);
      }
    }
    if (acct.secretKey !== undefined) parseBytes(acct.secretKey, `${addrKey}.secretKey`, 32);
    alloc.set(hex, {
      address,
      balance: parseUint(acct.balance, `${addrKey}.balance`),
      nonce: acct.nonce === undefined ? 0n : parseUint(acct.nonce, `${addrKey}.nonce`, 64),
      code: acct.code === undefined ? new Uint8Array(0) : parseBytes(acct.code, `${addrKey}.code`),
      storage,
    });
  }
  return alloc;
}
