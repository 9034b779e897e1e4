/**
 * anvil_dumpState / anvil_loadState's format: anvil's `SerializableState` as JSON, gzipped, sent as hex. We write the
 * fields anvil reads back (`block`, `accounts`, `best_block_number`, empty `blocks` and `transactions`), so a dump of
 * ours loads into anvil and one of anvil's loads here (its accounts; the blocks it lists are not replayed).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { bytesToHex, hexToBytes, toQuantity } from '../primitives/hex.ts';
import type { DevStateEdit } from '../rpc/interface.ts';
import { RpcError } from '../rpc/errors.ts';
import type { DumpedAccount } from '../state/store/dumpAccounts.ts';

interface AnvilAccount {
  nonce: number | string;
  balance: string;
  code: string;
  storage: Record<string, string>;
}

/** The head block fields anvil's dump carries beside the accounts. */
export interface DumpBlock {
  number: bigint;
  timestamp: bigint;
  gasLimit: bigint;
  baseFee?: bigint;
  coinbase: Uint8Array;
}

export function encodeStateDump(block: DumpBlock, accounts: Iterable<DumpedAccount>): Uint8Array {
  const out: Record<string, AnvilAccount> = {};
  for (const a of accounts) {
    const storage: Record<string, string> = {};
    for (const [slot, value] of a.storage) storage[bytesToHex(slot)] = bytesToHex(value);
    out[bytesToHex(a.address)] = {
      nonce: Number(a.account.nonce),
      balance: toQuantity(a.account.balance),
      code: bytesToHex(a.code),
      storage,
    };
  }
  const json = {
    block: {
      number: toQuantity(block.number),
      beneficiary: bytesToHex(block.coinbase),
      timestamp: toQuantity(block.timestamp),
      gas_limit: Number(block.gasLimit),
      basefee: Number(block.baseFee ?? 0n),
      difficulty: '0x0',
    },
    accounts: out,
    // anvil requires the field and moves its head to it; 0 is the one block every chain has (we ship no blocks).
    best_block_number: '0x0',
    blocks: [],
    transactions: [],
  };
  return gzipSync(JSON.stringify(json));
}

const bad = (why: string): RpcError => new RpcError('INVALID_PARAMS', `invalid argument 0: invalid state dump: ${why}`);

function bytesOf(v: unknown, what: string): Uint8Array {
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw bad(`${what} is not hex data`);
  return hexToBytes(v);
}

function numberOf(v: unknown, what: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v)) return BigInt(v);
  throw bad(`${what} is not a number`);
}

function word(v: unknown, what: string): Uint8Array {
  const b = bytesOf(typeof v === 'string' && v.length % 2 === 1 ? '0x0' + v.slice(2) : v, what);
  if (b.length > 32) throw bad(`${what} is longer than 32 bytes`);
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

/** The accounts of a dump (gzipped or plain JSON) as state edits. */
export function decodeStateDump(dump: Uint8Array): DevStateEdit[] {
  let text: string;
  try {
    text = (dump[0] === 0x1f && dump[1] === 0x8b ? gunzipSync(dump) : Buffer.from(dump)).toString('utf8');
  } catch {
    throw bad('not gzip data');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw bad('not JSON');
  }
  const accounts = (json as { accounts?: unknown } | null)?.accounts;
  if (accounts === null || typeof accounts !== 'object') throw bad('no "accounts" object');
  return Object.entries(accounts as Record<string, unknown>).map(([addr, v]) => {
    const address = bytesOf(addr, 'an address');
    if (address.length !== 20) throw bad(`${addr} is not a 20-byte address`);
    const a = v as Partial<AnvilAccount> | null;
    if (a === null || typeof a !== 'object') throw bad(`account ${addr} is not an object`);
    const storage = Object.entries(a.storage ?? {}).map(
      ([k, val]) => [word(k, 'a slot'), word(val, 'a storage value')] as [Uint8Array, Uint8Array],
    );
    return {
      address,
      nonce: numberOf(a.nonce ?? 0, `nonce of ${addr}`),
      balance: numberOf(a.balance ?? '0x0', `balance of ${addr}`),
      code: bytesOf(a.code ?? '0x', `code of ${addr}`),
      storage,
    };
  });
}
