/** Transaction encode/decode/sign against ethers and the EIP-155 example, block-body items, and bad bytes. */
import { describe, expect, it } from 'vitest';
import { Wallet, type TransactionRequest } from 'ethers';
import {
  decodeTransaction,
  decodeTransactionFromBlockItem,
  encodeTransaction,
  encodeTransactionForBlock,
  recoverSender,
  signingHash,
  signingPayload,
  signingPayloadOfDecoded,
  signTransaction,
  TxError,
  type UnsignedTransaction,
} from '../../../core/chain/transaction/index.ts';
import { bytesToHex, hexToBytes } from '../../../core/primitives/hex.ts';
import { keccak256 } from '../../../core/primitives/keccak.ts';
import { decodeRlp, encodeRlp, encodeRlpListOfEncoded } from '../../../core/primitives/rlp.ts';
import { addressFromPrivateKey } from '../../../core/primitives/secp256k1/index.ts';

const KEY = new Uint8Array(32).fill(0x46);
const EIP155_RAW =
  '0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83';

const to = hexToBytes('0x3535353535353535353535353535353535353535');
const slot = (n: number): Uint8Array => hexToBytes('0x' + n.toString(16).padStart(64, '0'));
const accessList = [{ address: to, storageKeys: [slot(1), slot(2)] }];

const CASES: Record<string, UnsignedTransaction> = {
  legacyPre155: { type: 0, chainId: undefined, nonce: 0n, gasPrice: 1n, gasLimit: 21000n, to, value: 1n, data: new Uint8Array(0) },
  legacy155: {
    type: 0,
    chainId: 1n,
    nonce: 9n,
    gasPrice: 20_000_000_000n,
    gasLimit: 21000n,
    to,
    value: 10n ** 18n,
    data: new Uint8Array(0),
  },
  accessList: { type: 1, chainId: 5n, nonce: 3n, gasPrice: 7n, gasLimit: 60000n, to, value: 0n, data: Uint8Array.of(1, 0, 2), accessList },
  dynamicFee: {
    type: 2,
    chainId: 2040n,
    nonce: 300n,
    maxPriorityFeePerGas: 2n,
    maxFeePerGas: 100n,
    gasLimit: 90000n,
    to,
    value: 5n,
    data: new Uint8Array(0),
    accessList,
  },
  create: {
    type: 2,
    chainId: 1n,
    nonce: 0n,
    maxPriorityFeePerGas: 0n,
    maxFeePerGas: 1n,
    gasLimit: 100000n,
    to: undefined,
    value: 0n,
    data: Uint8Array.of(0x60, 0, 0x60, 0, 0xf3),
  },
};

function ethersRequest(u: UnsignedTransaction): TransactionRequest {
  return {
    type: u.type,
    chainId: u.chainId,
    nonce: Number(u.nonce),
    gasPrice: u.gasPrice,
    maxPriorityFeePerGas: u.maxPriorityFeePerGas,
    maxFeePerGas: u.maxFeePerGas,
    gasLimit: u.gasLimit,
    to: u.to ? bytesToHex(u.to) : null,
    value: u.value,
    data: bytesToHex(u.data),
    accessList:
      u.type === 0
        ? undefined
        : (u.accessList ?? []).map((e) => ({ address: bytesToHex(e.address), storageKeys: e.storageKeys.map(bytesToHex) })),
  };
}

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof TxError ? e.code : `untyped: ${(e as Error).message}`;
  }
  return undefined;
}

describe('transaction codec', () => {
  it('default: signs the EIP-155 example to its published bytes', () => {
    const tx = signTransaction(CASES.legacy155, KEY);
    expect(bytesToHex(tx.raw)).toBe(EIP155_RAW);
    expect(bytesToHex(signingHash(tx))).toBe('0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53');
    expect(tx.v).toBe(37n);
  });

  for (const [name, unsigned] of Object.entries(CASES)) {
    it(`behavior: ${name} matches ethers byte for byte and round-trips`, async () => {
      const tx = signTransaction(unsigned, KEY);
      if (unsigned.chainId !== undefined)
        expect(bytesToHex(tx.raw)).toBe(await new Wallet(bytesToHex(KEY)).signTransaction(ethersRequest(unsigned)));
      const back = decodeTransaction(tx.raw);
      expect(back).toEqual(tx);
      expect(bytesToHex(encodeTransaction(back))).toBe(bytesToHex(tx.raw));
      expect(bytesToHex(back.hash)).toBe(bytesToHex(keccak256(tx.raw)));
      expect(bytesToHex(recoverSender(back))).toBe(bytesToHex(addressFromPrivateKey(KEY)));
      // Plain data: survives structured clone (the recovery pool's postMessage) unchanged.
      expect(structuredClone(back)).toEqual(back);
    });
  }

  it('behavior: the signed bytes cut from a decoded envelope equal the ones encoded from its fields, for every type', () => {
    const long = new Uint8Array(300).map((_, i) => i & 0xff);
    const blobHash = new Uint8Array(32).fill(1);
    blobHash[0] = 1;
    const auth = { chainId: 2040n, address: to, nonce: 7n, yParity: 1n, r: 12345n, s: 2n ** 200n };
    const extra: UnsignedTransaction[] = [
      // EIP-155 chain ids whose RLP is the byte itself, one byte after 0x80, and several bytes; a payload of 56+ bytes.
      ...[1n, 0x7fn, 0x80n, 51n, 2n ** 40n].map((chainId) => ({ ...CASES.legacy155, chainId, data: long })),
      { ...CASES.legacyPre155, data: long },
      { ...CASES.dynamicFee, data: long, value: 2n ** 255n },
      { ...CASES.accessList, accessList: [] },
      { ...CASES.dynamicFee, type: 3, blobVersionedHashes: [blobHash], maxFeePerBlobGas: 3n },
      { ...CASES.dynamicFee, type: 4, authorizationList: [auth] },
    ];
    for (const unsigned of [...Object.values(CASES), ...extra]) {
      const tx = decodeTransaction(signTransaction(unsigned, KEY).raw);
      expect(bytesToHex(signingPayloadOfDecoded(tx))).toBe(bytesToHex(signingPayload(tx)));
    }
  });

  it('behavior: block-body items — legacy as a list, typed as a byte string — decode to the same transactions', () => {
    const txs = Object.values(CASES).map((u) => signTransaction(u, KEY));
    const body = encodeRlp(txs.map(encodeTransactionForBlock));
    const items = decodeRlp(body) as Array<Uint8Array | unknown[]>;
    expect(Array.isArray(items[0])).toBe(true);
    expect(items[2]).toBeInstanceOf(Uint8Array);
    const back = (decodeRlp(body) as Parameters<typeof decodeTransactionFromBlockItem>[0][]).map(decodeTransactionFromBlockItem);
    expect(back).toEqual(txs);
    expect(bytesToHex(encodeRlpListOfEncoded(txs.map((t) => encodeRlp(encodeTransactionForBlock(t)))))).toBe(bytesToHex(body));
  });

  it('behavior: decoded byte fields are copies, not views of the input', () => {
    const raw = hexToBytes(EIP155_RAW);
    const tx = decodeTransaction(raw);
    raw.fill(0);
    expect(bytesToHex(tx.to as Uint8Array)).toBe(bytesToHex(to));
    expect(bytesToHex(tx.raw)).toBe(EIP155_RAW);
  });

  it('error: malformed envelopes are typed errors naming what was wrong', () => {
    const typed = signTransaction(CASES.dynamicFee, KEY).raw;
    expect(codeOf(() => decodeTransaction(new Uint8Array(0)))).toBe('TX_TOO_SHORT');
    expect(codeOf(() => decodeTransaction(Uint8Array.of(2)))).toBe('TX_TOO_SHORT');
    expect(codeOf(() => decodeTransaction(Uint8Array.of(5, 0xc0)))).toBe('TX_TYPE_NOT_SUPPORTED');
    expect(codeOf(() => decodeTransaction(Uint8Array.of(0x80)))).toBe('TX_MALFORMED');
    expect(codeOf(() => decodeTransaction(Uint8Array.of(2, 0x80)))).toBe('TX_MALFORMED');
    expect(codeOf(() => decodeTransaction(typed.subarray(0, typed.length - 1)))).toBe('TX_MALFORMED');
    expect(codeOf(() => decodeTransactionFromBlockItem(hexToBytes(EIP155_RAW)))).toBe('TX_MALFORMED');
    expect(codeOf(() => decodeTransactionFromBlockItem(new Uint8Array(0)))).toBe('TX_TOO_SHORT');
    // yParity 2 in a typed transaction
    const fields = decodeRlp(typed.subarray(1)) as Uint8Array[];
    fields[9] = Uint8Array.of(2);
    expect(codeOf(() => decodeTransaction(Uint8Array.of(2, ...encodeRlp(fields))))).toBe('TX_INVALID_SIGNATURE');
    expect(() => decodeTransaction(Uint8Array.of(2, ...encodeRlp(fields)))).toThrow(/invalid transaction v, r, s values/);
  });

  it('error: signing input that does not suit its type is refused', () => {
    expect(codeOf(() => signTransaction({ ...CASES.dynamicFee, maxFeePerGas: undefined }, KEY))).toBe('TX_INCOMPLETE');
    expect(codeOf(() => signTransaction({ ...CASES.accessList, gasPrice: undefined }, KEY))).toBe('TX_INCOMPLETE');
    expect(codeOf(() => signTransaction({ ...CASES.accessList, chainId: undefined }, KEY))).toBe('TX_INCOMPLETE');
    expect(codeOf(() => signTransaction({ ...CASES.legacy155, accessList }, KEY))).toBe('TX_INCOMPLETE');
  });
});
