/**
 * Transaction envelopes (EIP-2718) to and from bytes: legacy RLP lists, EIP-2930 (0x01 || rlp), EIP-1559
 * (0x02 || rlp), EIP-4844 blob (0x03 || rlp, the canonical form without sidecar) and EIP-7702 set code (0x04 || rlp).
 * Decoding is strict — canonical RLP, exact field counts, integers without leading zeros and within
 * their widths (nonce and gas are uint64, the rest uint256), addresses of 20 bytes, storage keys of 32 — and every
 * refusal is a `TxError` naming the field. A decoded Transaction owns one copy of its envelope (`raw`) and its byte
 * fields are views into that copy: it never pins the (possibly much larger) buffer it came from, structured clone
 * sends only its own bytes, and decoding allocates one buffer per transaction rather than one per field.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bigIntToBytes, concatBytes, equalBytes } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { decodeRlp, encodeRlp, expectBytes, expectList, expectUint, RlpError, type RlpInput, type RlpItem } from '../../primitives/rlp.ts';
import { TxError } from './errors.ts';
import type { AccessListItem, Authorization, Transaction, TxType } from './types.ts';

const EMPTY = new Uint8Array(0);

/** Decodes a transaction from its envelope bytes (as in eth_sendRawTransaction and the transactions trie). */
export function decodeTransaction(raw: Uint8Array): Transaction {
  if (raw.length === 0) throw new TxError('TX_TOO_SHORT', 'typed transaction too short: empty input');
  const first = raw[0];
  if (first >= 0xc0) {
    const copy = raw.slice();
    return rlpGuard(() => decodeLegacy(decodeRlp(copy), copy));
  }
  if (first >= 0x80) {
    throw new TxError(
      'TX_MALFORMED',
      `rlp: transaction must be an RLP list (legacy) or start with a type byte below 0x80, got 0x${first.toString(16)}`,
      {
        firstByte: first,
      },
    );
  }
  return decodeTyped(raw.slice());
}

/**
 * Decodes a transaction as eth_sendRawTransaction receives it: like `decodeTransaction`, plus EIP-4844's network form
 * of a blob transaction (0x03 || rlp([tx_payload_body, blobs, commitments, proofs]), or Osaka's EIP-7594 form with a
 * wrapper version and cell proofs). The sidecar must match the transaction (one blob, commitment and proof set per
 * versioned hash, each hash 0x01 || sha256(commitment)[1:]); it is then dropped: this network carries no blob data
 * (decision 0033), and the canonical transaction is what blocks hold.
 */
export function decodePooledTransaction(raw: Uint8Array): Transaction {
  if (raw.length < 2 || raw[0] !== 3) return decodeTransaction(raw);
  const wrapper = rlpGuard(() => decodeRlp(raw.subarray(1)));
  if (!Array.isArray(wrapper) || wrapper.length === 0 || !Array.isArray(wrapper[0])) {
    throw new TxError('TX_BLOB_SIDECAR', 'blob transaction without its sidecar: send the network form (blobs, commitments, proofs)', {
      type: 3,
    });
  }
  return rlpGuard(() => {
    const osaka = wrapper.length === 5;
    if (wrapper.length !== 4 && !osaka) {
      throw new TxError('TX_BLOB_SIDECAR', `blob transaction network form: expected 4 or 5 parts, got ${wrapper.length}`);
    }
    if (osaka && expectUint(expectBytes(wrapper[1], 'wrapperVersion'), 'wrapperVersion', 1) !== 1n) {
      throw new TxError('TX_BLOB_SIDECAR', 'blob transaction network form: unknown wrapper version');
    }
    const body = encodeRlp(wrapper[0] as RlpItem[]);
    const tx = decodeBlobTx(wrapper[0] as RlpItem[], concatBytes(Uint8Array.of(3), body));
    const rest = wrapper.slice(osaka ? 2 : 1);
    const [blobs, commitments, proofs] = rest.map((item, i) => expectList(item, ['blobs', 'commitments', 'proofs'][i] as string));
    const n = tx.blobVersionedHashes?.length ?? 0;
    const perBlob = osaka ? 128 : 1;
    if (blobs.length !== n || commitments.length !== n || proofs.length !== n * perBlob) {
      throw new TxError('TX_BLOB_SIDECAR', `blob transaction sidecar does not match its ${n} versioned hashes`, {
        blobs: blobs.length,
        commitments: commitments.length,
        proofs: proofs.length,
      });
    }
    for (const [i, c] of commitments.entries()) {
      const versioned = sha256(expectBytes(c, `commitments[${i}]`, 48));
      versioned[0] = 0x01;
      if (!equalBytes(versioned, tx.blobVersionedHashes?.[i] ?? new Uint8Array(0))) {
        throw new TxError('TX_BLOB_SIDECAR', `blob transaction sidecar: commitment ${i} does not match its versioned hash`, { index: i });
      }
    }
    return tx;
  });
}

/**
 * Decodes one item of a block body's transaction list: legacy transactions are RLP lists there, typed ones are RLP
 * byte strings holding the envelope (EIP-2718). A byte string holding a legacy encoding is refused, as geth does.
 */
export function decodeTransactionFromBlockItem(item: RlpItem): Transaction {
  if (Array.isArray(item)) {
    // Re-encoding a strictly decoded item reproduces its bytes; decoding them again makes the fields views of `raw`.
    const raw = encodeRlp(item);
    return rlpGuard(() => decodeLegacy(decodeRlp(raw), raw));
  }
  if (item.length === 0) throw new TxError('TX_TOO_SHORT', 'typed transaction too short: empty byte string in block body');
  if (item[0] >= 0x80) {
    throw new TxError('TX_MALFORMED', 'rlp: block body holds a byte string that is not a typed transaction envelope', {
      firstByte: item[0],
    });
  }
  return decodeTyped(item.slice());
}

/** The canonical envelope bytes of a transaction, encoded from its fields. */
export function encodeTransaction(tx: Transaction): Uint8Array {
  const signature = [bigIntToBytes(tx.v), bigIntToBytes(tx.r), bigIntToBytes(tx.s)];
  if (tx.type === 0) return encodeRlp([...legacyFields(tx), ...signature]);
  return concatBytes(Uint8Array.of(tx.type), encodeRlp([...typedFields(tx), ...signature]));
}

/**
 * The transaction as an element of a block body's list: legacy as its RLP list, typed as a byte string of the
 * envelope. Built from `tx.raw`, the canonical envelope fixed when the transaction was decoded or signed.
 */
export function encodeTransactionForBlock(tx: Transaction): RlpInput {
  if (tx.type === 0) return decodeRlp(tx.raw) as RlpInput;
  return tx.raw;
}

/** Legacy fields that the signature covers (without the EIP-155 chain-id suffix). */
export function legacyFields(tx: Transaction): RlpInput[] {
  return [
    bigIntToBytes(tx.nonce),
    bigIntToBytes(tx.gasPrice),
    bigIntToBytes(tx.gasLimit),
    tx.to ?? EMPTY,
    bigIntToBytes(tx.value),
    tx.data,
  ];
}

/** Typed payload fields that the signature covers (everything before yParity, r, s). */
export function typedFields(tx: Transaction): RlpInput[] {
  const accessList = tx.accessList.map((e) => [e.address, e.storageKeys]);
  const head = [bigIntToBytes(tx.chainId ?? 0n), bigIntToBytes(tx.nonce)];
  const fees = tx.type === 1 ? [bigIntToBytes(tx.gasPrice)] : [bigIntToBytes(tx.maxPriorityFeePerGas), bigIntToBytes(tx.maxFeePerGas)];
  const fields: RlpInput[] = [...head, ...fees, bigIntToBytes(tx.gasLimit), tx.to ?? EMPTY, bigIntToBytes(tx.value), tx.data, accessList];
  if (tx.type === 3) fields.push(bigIntToBytes(tx.maxFeePerBlobGas ?? 0n), tx.blobVersionedHashes ?? []);
  if (tx.type === 4) fields.push((tx.authorizationList ?? []).map(authorizationFields));
  return fields;
}

/** An authorization tuple as RLP fields: [chainId, address, nonce, yParity, r, s]. */
export function authorizationFields(a: Authorization): RlpInput[] {
  return [bigIntToBytes(a.chainId), a.address, bigIntToBytes(a.nonce), bigIntToBytes(a.yParity), bigIntToBytes(a.r), bigIntToBytes(a.s)];
}

// ---------------------------------------------------------------------------------------------------------------

function rlpGuard<T>(decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof RlpError) throw new TxError('TX_MALFORMED', `transaction: ${err.message}`, { ...err.meta, rlpCode: err.code });
    throw err;
  }
}

function decodeTyped(raw: Uint8Array): Transaction {
  const type = raw[0];
  if (type < 1 || type > 4)
    throw new TxError('TX_TYPE_NOT_SUPPORTED', `transaction type not supported: 0x${type.toString(16).padStart(2, '0')}`, { type });
  if (raw.length === 1) throw new TxError('TX_TOO_SHORT', 'typed transaction too short: no payload', { type });
  return rlpGuard(() => {
    const payload = decodeRlp(raw.subarray(1));
    if (!Array.isArray(payload)) throw new TxError('TX_MALFORMED', `rlp: type ${type} transaction payload must be a list`, { type });
    if (type === 1) return decodeAccessListTx(payload, raw);
    if (type === 2) return decodeDynamicFeeTx(payload, raw);
    if (type === 3) return decodeBlobTx(payload, raw);
    return decodeSetCodeTx(payload, raw);
  });
}

function uint(item: RlpItem, field: string, maxBits: 64 | 256): bigint {
  const bytes = expectBytes(item, field);
  // A leading zero is reported as such (by expectUint) before the width, since it is the first thing wrong.
  if (bytes.length * 8 > maxBits && bytes[0] !== 0) {
    throw new TxError('TX_FIELD_TOO_LARGE', `transaction: ${field} of ${bytes.length} bytes exceeds ${maxBits} bits`, {
      field,
      bytes: bytes.length,
      maxBits,
    });
  }
  return expectUint(bytes, field, maxBits / 8);
}

function toField(item: RlpItem): Uint8Array | undefined {
  const bytes = expectBytes(item, 'to');
  if (bytes.length === 0) return undefined;
  if (bytes.length !== 20)
    throw new TxError('TX_INVALID_ADDRESS', `transaction: to must be 20 bytes or empty, got ${bytes.length}`, {
      field: 'to',
      bytes: bytes.length,
    });
  return bytes;
}

function decodeAccessList(item: RlpItem): AccessListItem[] {
  return expectList(item, 'accessList').map((entry, i) => {
    const [addressItem, keysItem] = expectList(entry, `accessList[${i}]`, 2);
    const address = expectBytes(addressItem, `accessList[${i}].address`);
    if (address.length !== 20) {
      throw new TxError('TX_INVALID_ADDRESS', `transaction: accessList[${i}].address must be 20 bytes, got ${address.length}`, {
        index: i,
        bytes: address.length,
      });
    }
    const storageKeys = expectList(keysItem, `accessList[${i}].storageKeys`).map((k, j) => {
      const key = expectBytes(k, `accessList[${i}].storageKeys[${j}]`);
      if (key.length !== 32) {
        throw new TxError('TX_INVALID_STORAGE_KEY', `transaction: accessList[${i}].storageKeys[${j}] must be 32 bytes, got ${key.length}`, {
          index: i,
          key: j,
          bytes: key.length,
        });
      }
      return key;
    });
    return { address, storageKeys };
  });
}

/** EIP-155: v = 27/28 (no chain id) or chainId * 2 + 35/36. Anything else names no chain and no parity. */
function chainIdFromLegacyV(v: bigint): bigint | undefined {
  if (v === 27n || v === 28n) return undefined;
  if (v >= 35n) return (v - 35n) >> 1n;
  throw new TxError('TX_INVALID_SIGNATURE', `invalid transaction v, r, s values: legacy v = ${v} is neither 27/28 nor EIP-155 (>= 35)`, {
    v: v.toString(),
  });
}

function yParity(item: RlpItem): bigint {
  const v = uint(item, 'yParity', 256);
  if (v > 1n)
    throw new TxError('TX_INVALID_SIGNATURE', `invalid transaction v, r, s values: yParity must be 0 or 1, got ${v}`, { v: v.toString() });
  return v;
}

function decodeLegacy(item: RlpItem, raw: Uint8Array): Transaction {
  const f = expectList(item, 'legacy transaction', 9);
  const gasPrice = uint(f[1], 'gasPrice', 256);
  const v = uint(f[6], 'v', 256);
  return {
    type: 0 as TxType,
    chainId: chainIdFromLegacyV(v),
    nonce: uint(f[0], 'nonce', 64),
    gasPrice,
    maxPriorityFeePerGas: gasPrice,
    maxFeePerGas: gasPrice,
    gasLimit: uint(f[2], 'gasLimit', 64),
    to: toField(f[3]),
    value: uint(f[4], 'value', 256),
    data: expectBytes(f[5], 'data'),
    accessList: [],
    v,
    r: uint(f[7], 'r', 256),
    s: uint(f[8], 's', 256),
    raw,
    hash: keccak256(raw),
  };
}

function decodeAccessListTx(f: RlpItem[], raw: Uint8Array): Transaction {
  expectList(f, 'EIP-2930 transaction', 11);
  const gasPrice = uint(f[2], 'gasPrice', 256);
  return {
    type: 1,
    chainId: uint(f[0], 'chainId', 256),
    nonce: uint(f[1], 'nonce', 64),
    gasPrice,
    maxPriorityFeePerGas: gasPrice,
    maxFeePerGas: gasPrice,
    gasLimit: uint(f[3], 'gasLimit', 64),
    to: toField(f[4]),
    value: uint(f[5], 'value', 256),
    data: expectBytes(f[6], 'data'),
    accessList: decodeAccessList(f[7]),
    ...signatureFields(f, 8),
    raw,
    hash: keccak256(raw),
  };
}

/**
 * The fields EIP-1559, EIP-4844 and EIP-7702 transactions share, f[0]..f[8] in list order (chainId, nonce, tip, fee
 * cap, gas, to, value, data, access list); `to` decides whether a contract creation is allowed.
 */
function feeMarketFields(f: RlpItem[], to: (item: RlpItem) => Uint8Array | undefined) {
  const maxFeePerGas = uint(f[3], 'maxFeePerGas', 256);
  return {
    chainId: uint(f[0], 'chainId', 256),
    nonce: uint(f[1], 'nonce', 64),
    gasPrice: maxFeePerGas,
    maxPriorityFeePerGas: uint(f[2], 'maxPriorityFeePerGas', 256),
    maxFeePerGas,
    gasLimit: uint(f[4], 'gasLimit', 64),
    to: to(f[5]),
    value: uint(f[6], 'value', 256),
    data: expectBytes(f[7], 'data'),
    accessList: decodeAccessList(f[8]),
  };
}

/** yParity, r and s: a typed transaction's last three fields, from `at`. */
function signatureFields(f: RlpItem[], at: number): { v: bigint; r: bigint; s: bigint } {
  return { v: yParity(f[at]), r: uint(f[at + 1], 'r', 256), s: uint(f[at + 2], 's', 256) };
}

function decodeDynamicFeeTx(f: RlpItem[], raw: Uint8Array): Transaction {
  expectList(f, 'EIP-1559 transaction', 12);
  return {
    type: 2,
    ...feeMarketFields(f, toField),
    ...signatureFields(f, 9),
    raw,
    hash: keccak256(raw),
  };
}

/** 20 bytes, required: blob and set-code transactions cannot create contracts. */
function requiredTo(item: RlpItem, type: number): Uint8Array {
  const to = toField(item);
  if (to === undefined) {
    throw new TxError('TX_MALFORMED', `transaction: type ${type} transaction cannot create a contract (to is required)`, {
      field: 'to',
      type,
    });
  }
  return to;
}

function decodeBlobTx(f: RlpItem[], raw: Uint8Array): Transaction {
  if (f.length > 0 && Array.isArray(f[0])) {
    // The network form: only eth_sendRawTransaction takes it (decodePooledTransaction); blocks hold the canonical one.
    throw new TxError('TX_BLOB_SIDECAR', 'blob transaction in its network form (with sidecar) where the canonical form is required', {
      type: 3,
    });
  }
  expectList(f, 'EIP-4844 transaction', 14);
  const hashes = expectList(f[10], 'blobVersionedHashes').map((h, i) => {
    const b = expectBytes(h, `blobVersionedHashes[${i}]`);
    if (b.length !== 32) {
      throw new TxError('TX_MALFORMED', `transaction: blobVersionedHashes[${i}] must be 32 bytes, got ${b.length}`, { index: i });
    }
    return b;
  });
  return {
    type: 3,
    ...feeMarketFields(f, (item) => requiredTo(item, 3)),
    maxFeePerBlobGas: uint(f[9], 'maxFeePerBlobGas', 256),
    blobVersionedHashes: hashes,
    ...signatureFields(f, 11),
    raw,
    hash: keccak256(raw),
  };
}

function decodeAuthorization(item: RlpItem, i: number): Authorization {
  const f = expectList(item, `authorizationList[${i}]`, 6);
  const address = expectBytes(f[1], `authorizationList[${i}].address`);
  if (address.length !== 20) {
    throw new TxError('TX_INVALID_ADDRESS', `transaction: authorizationList[${i}].address must be 20 bytes, got ${address.length}`, {
      index: i,
    });
  }
  return {
    chainId: uint(f[0], `authorizationList[${i}].chainId`, 256),
    address,
    nonce: uint(f[2], `authorizationList[${i}].nonce`, 64),
    // geth decodes V as a uint8; the parity check is the authority recovery's (an invalid one is skipped).
    yParity: expectUint(expectBytes(f[3], `authorizationList[${i}].yParity`), `authorizationList[${i}].yParity`, 1),
    r: uint(f[4], `authorizationList[${i}].r`, 256),
    s: uint(f[5], `authorizationList[${i}].s`, 256),
  };
}

function decodeSetCodeTx(f: RlpItem[], raw: Uint8Array): Transaction {
  expectList(f, 'EIP-7702 transaction', 13);
  return {
    type: 4,
    ...feeMarketFields(f, (item) => requiredTo(item, 4)),
    authorizationList: expectList(f[9], 'authorizationList').map(decodeAuthorization),
    ...signatureFields(f, 10),
    raw,
    hash: keccak256(raw),
  };
}
