/**
 * Deterministic signed transactions for benchmarks and tests in every layer (block benchmark, execution, sync):
 * real signatures from well-known keys, so runs are reproducible and a failure can be replayed.
 */
import { keccak256 } from '../../primitives/keccak.ts';
import { addressFromPrivateKey } from '../../primitives/secp256k1/address.ts';
import type { Secp256k1Backend } from '../../primitives/secp256k1/types.ts';
import { signTransaction } from './sign.ts';
import type { Transaction } from './types.ts';

const encoder = new TextEncoder();

/** The i-th test private key: keccak256("xone-test-key-<i>") (always in [1, n-1] in practice). */
export function testingPrivateKey(i: number): Uint8Array {
  return keccak256(encoder.encode(`xone-test-key-${i}`));
}

/** The address of `testingPrivateKey(i)`, e.g. to fund it in a genesis alloc. */
export function testingAddress(i: number, backend?: Secp256k1Backend): Uint8Array {
  return addressFromPrivateKey(testingPrivateKey(i), backend);
}

export interface SignedTransfersOptions {
  /** Distinct senders; transaction i comes from sender i % senders with nonce floor(i / senders). Default n. */
  senders?: number;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  backend?: Secp256k1Backend;
}

/**
 * `n` EIP-1559 value transfers (21000 gas, 1 wei each) on `chainId`, from `senders` deterministic keys
 * (`testingPrivateKey(0..senders-1)`) to distinct recipients. 1,428 of them fill a 30 M gas block.
 */
export function makeSignedTransfers(n: number, chainId: bigint, options: SignedTransfersOptions = {}): Transaction[] {
  const senders = Math.max(1, options.senders ?? n);
  const keys = Array.from({ length: Math.min(senders, n) }, (_, i) => testingPrivateKey(i));
  const txs: Transaction[] = [];
  for (let i = 0; i < n; i++) {
    const to = keccak256(encoder.encode(`xone-test-recipient-${i}`)).slice(12);
    txs.push(
      signTransaction(
        {
          type: 2,
          chainId,
          nonce: BigInt(Math.floor(i / senders)),
          maxPriorityFeePerGas: options.maxPriorityFeePerGas ?? 1_000_000_000n,
          maxFeePerGas: options.maxFeePerGas ?? 2_000_000_000n,
          gasLimit: 21000n,
          to,
          value: 1n,
          data: new Uint8Array(0),
        },
        keys[i % senders],
        options.backend,
      ),
    );
  }
  return txs;
}
