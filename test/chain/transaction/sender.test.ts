/** Sender recovery with each backend, its typed errors, and the shared test-transaction generator. */
import { describe, expect, it } from 'vitest';
import { recoverSender, TxError, type Transaction } from '../../../core/chain/transaction/index.ts';
import { makeSignedTransfers, testingAddress } from '../../../core/chain/transaction/testing.ts';
import { bytesToHex } from '../../../core/primitives/hex.ts';
import { createNativeSecp256k1, createNobleSecp256k1, SECP256K1_N } from '../../../core/primitives/secp256k1/index.ts';

const backends = [createNativeSecp256k1(), createNobleSecp256k1()];

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof TxError ? e.code : `untyped: ${(e as Error).message}`;
  }
  return undefined;
}

describe('recoverSender', () => {
  const txs = makeSignedTransfers(12, 2040n, { senders: 4 });

  it('default: makeSignedTransfers is deterministic, many senders, nonces per sender', () => {
    expect(makeSignedTransfers(12, 2040n, { senders: 4 })).toEqual(txs);
    expect(txs.map((t) => t.nonce)).toEqual([0n, 0n, 0n, 0n, 1n, 1n, 1n, 1n, 2n, 2n, 2n, 2n]);
    expect(new Set(txs.map((t) => bytesToHex(t.hash))).size).toBe(12);
    expect(txs.every((t) => t.type === 2 && t.chainId === 2040n && t.gasLimit === 21000n)).toBe(true);
  });

  for (const b of backends) {
    it(`behavior: ${b.name} recovers each transfer's sender`, () => {
      txs.forEach((tx, i) => expect(bytesToHex(recoverSender(tx, b))).toBe(bytesToHex(testingAddress(i % 4))));
    });

    it(`error: ${b.name}: out-of-range r/s and an r with no curve point are typed errors`, () => {
      const tx: Transaction = txs[0];
      expect(codeOf(() => recoverSender({ ...tx, r: 0n }, b))).toBe('TX_INVALID_SIGNATURE');
      expect(codeOf(() => recoverSender({ ...tx, s: SECP256K1_N }, b))).toBe('TX_INVALID_SIGNATURE');
      expect(codeOf(() => recoverSender({ ...tx, v: 2n }, b))).toBe('TX_INVALID_SIGNATURE');
      expect(codeOf(() => recoverSender({ ...tx, r: SECP256K1_N - 1n }, b))).toBe('TX_INVALID_SENDER');
    });
  }

  it('behavior: a changed field recovers a different sender (the signing hash covers it)', () => {
    const tx = txs[0];
    expect(bytesToHex(recoverSender({ ...tx, value: 2n }))).not.toBe(bytesToHex(recoverSender(tx)));
  });
});
