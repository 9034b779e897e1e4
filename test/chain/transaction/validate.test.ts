/** Static validity and intrinsic gas: each rule, by fork, with geth's wording. */
import { describe, expect, it } from 'vitest';
import type { Fork } from '../../../core/chain/forks.ts';
import {
  intrinsicGas,
  MAX_INIT_CODE_SIZE,
  signTransaction,
  TxError,
  validateTransactionStatic,
  type Transaction,
  type UnsignedTransaction,
} from '../../../core/chain/transaction/index.ts';
import { SECP256K1_N } from '../../../core/primitives/secp256k1/index.ts';

const KEY = new Uint8Array(32).fill(7);
const to = new Uint8Array(20).fill(0x11);
const base: UnsignedTransaction = {
  type: 2,
  chainId: 1n,
  nonce: 0n,
  maxPriorityFeePerGas: 1n,
  maxFeePerGas: 2n,
  gasLimit: 21000n,
  to,
  value: 0n,
  data: new Uint8Array(0),
};
const sign = (over: Partial<UnsignedTransaction> = {}): Transaction => signTransaction({ ...base, ...over }, KEY);

function failure(tx: Transaction, fork: Fork = 'Shanghai', chainId = 1n): { code: string; message: string } | undefined {
  try {
    validateTransactionStatic(tx, { fork, chainId });
  } catch (e) {
    return e instanceof TxError ? { code: e.code, message: e.message } : { code: 'untyped', message: String(e) };
  }
  return undefined;
}

describe('validateTransactionStatic', () => {
  it('default: a signed transfer is valid from London on', () => {
    expect(failure(sign(), 'London')).toBeUndefined();
    expect(failure(sign(), 'Shanghai')).toBeUndefined();
  });

  it('error: typed transactions before their fork: "transaction type not supported"', () => {
    expect(failure(sign(), 'Berlin')).toMatchObject({
      code: 'TX_TYPE_NOT_SUPPORTED',
      message: expect.stringMatching(/^transaction type not supported/),
    });
    expect(failure(sign({ type: 1, gasPrice: 1n }), 'Istanbul')?.code).toBe('TX_TYPE_NOT_SUPPORTED');
    expect(failure(sign({ type: 1, gasPrice: 1n }), 'Berlin')).toBeUndefined();
  });

  it('error: wrong chain id, and EIP-155 before Spurious Dragon: "invalid chain id for signer"', () => {
    expect(failure(sign(), 'London', 5n)).toMatchObject({
      code: 'TX_INVALID_CHAIN_ID',
      message: 'invalid chain id for signer: have 1 want 5',
    });
    const legacy = sign({ type: 0, gasPrice: 1n });
    expect(failure(legacy, 'Homestead')?.code).toBe('TX_INVALID_CHAIN_ID');
    expect(failure(legacy, 'SpuriousDragon')).toBeUndefined();
    expect(failure(sign({ type: 0, gasPrice: 1n, chainId: undefined }), 'London', 5n)).toBeUndefined(); // pre-155: any chain
  });

  it("error: tip above fee cap, with geth's message", () => {
    expect(failure(sign({ maxPriorityFeePerGas: 3n }))).toEqual({
      code: 'TX_TIP_ABOVE_FEE_CAP',
      message: 'max priority fee per gas higher than max fee per gas: maxPriorityFeePerGas: 3, maxFeePerGas: 2',
    });
  });

  it('error: gas * fee cap over 256 bits, nonce at 2^64-1, intrinsic gas', () => {
    expect(failure(sign({ maxFeePerGas: 1n << 255n, maxPriorityFeePerGas: 0n }))?.code).toBe('TX_FEE_OVERFLOW');
    expect(failure(sign({ nonce: (1n << 64n) - 1n }))).toMatchObject({
      code: 'TX_NONCE_MAX',
      message: expect.stringMatching(/^nonce has max value/),
    });
    expect(failure(sign({ nonce: (1n << 64n) - 2n }))).toBeUndefined();
    expect(failure(sign({ gasLimit: 20999n }))).toEqual({
      code: 'TX_INTRINSIC_GAS',
      message: 'intrinsic gas too low: have 20999, want 21000',
    });
  });

  it('error: EIP-2 low s from Homestead; high s is fine in Frontier', () => {
    const tx = sign({ type: 0, gasPrice: 1n, chainId: undefined });
    const high: Transaction = { ...tx, s: SECP256K1_N - tx.s, v: tx.v === 27n ? 28n : 27n };
    expect(failure(high, 'Homestead')).toMatchObject({
      code: 'TX_INVALID_SIGNATURE',
      message: expect.stringMatching(/^invalid transaction v, r, s values/),
    });
    expect(failure(high, 'Frontier')).toBeUndefined();
    expect(failure({ ...tx, r: 0n }, 'Frontier')?.code).toBe('TX_INVALID_SIGNATURE');
    expect(failure({ ...tx, v: 29n }, 'Frontier')?.code).toBe('TX_INVALID_SIGNATURE');
  });

  it('error: EIP-3860 initcode over 49152 bytes from Shanghai only', () => {
    const big = sign({ to: undefined, data: new Uint8Array(MAX_INIT_CODE_SIZE + 1), gasLimit: 10_000_000n });
    expect(failure(big, 'Shanghai')).toMatchObject({
      code: 'TX_INIT_CODE_TOO_LARGE',
      message: expect.stringMatching(/^max initcode size exceeded/),
    });
    expect(failure(big, 'London')).toBeUndefined();
    expect(failure(sign({ to: undefined, data: new Uint8Array(MAX_INIT_CODE_SIZE), gasLimit: 10_000_000n }), 'Shanghai')).toBeUndefined();
  });
});

describe('intrinsicGas', () => {
  const data = Uint8Array.of(0, 1, 0, 2); // 2 zero, 2 non-zero
  const al = [{ address: to, storageKeys: [new Uint8Array(32), new Uint8Array(32)] }];
  it('default: per-fork costs of calldata, creates, access lists and initcode words', () => {
    expect(intrinsicGas({ to, data, accessList: [] }, 'Frontier')).toBe(21000n + 8n + 136n);
    expect(intrinsicGas({ to, data, accessList: [] }, 'Istanbul')).toBe(21000n + 8n + 32n);
    expect(intrinsicGas({ to: undefined, data, accessList: [] }, 'Frontier')).toBe(21000n + 8n + 136n);
    expect(intrinsicGas({ to: undefined, data, accessList: [] }, 'Homestead')).toBe(53000n + 8n + 136n);
    expect(intrinsicGas({ to, data, accessList: al }, 'Berlin')).toBe(21000n + 40n + 2400n + 3800n);
    expect(intrinsicGas({ to: undefined, data: new Uint8Array(33), accessList: [] }, 'London')).toBe(53000n + 132n);
    expect(intrinsicGas({ to: undefined, data: new Uint8Array(33), accessList: [] }, 'Shanghai')).toBe(53000n + 132n + 4n);
  });
});
