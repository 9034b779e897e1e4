/**
 * The two workloads of `npm run bench:exec`: full blocks of value transfers (1,428 per block, one per sender per
 * block) and full blocks of ERC-20 transfers. Each returns the genesis allocation and the signed transactions per
 * block; signing is not timed.
 */
import { signTransaction, type Transaction } from '../../chain/transaction/index.ts';
import { makeSignedTransfers, testingAddress, testingPrivateKey } from '../../chain/transaction/testing.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import type { AllocAccount } from '../../state/alloc.ts';
import { balanceSlot, compileToken, transferCalldata } from './erc20.ts';

/** Transfers that fill a 30 M gas block. */
export const TRANSFERS_PER_BLOCK = 1428;
/** ERC-20 transfers per block (about 52 k gas each; fits 30 M with headroom). */
export const ERC20_PER_BLOCK = 560;
const MAX_FEE = 1_000_000_000_000n;
const TIP = 1_000_000_000n;
const ETH = 10n ** 18n;

/** One workload ready to build. */
export interface Workload {
  alloc: Array<[Uint8Array, AllocAccount]>;
  blocks: Transaction[][];
  solcVersion?: string;
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** `blocks` full blocks of value transfers from 1,428 funded senders to fresh recipients. */
export function transferWorkload(chainId: bigint, blocks: number): Workload {
  const txs = makeSignedTransfers(TRANSFERS_PER_BLOCK * blocks, chainId, {
    senders: TRANSFERS_PER_BLOCK,
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: TIP,
  });
  const alloc: Array<[Uint8Array, AllocAccount]> = [];
  for (let i = 0; i < TRANSFERS_PER_BLOCK; i++) alloc.push([testingAddress(i), { balance: 1000n * ETH }]);
  return { alloc, blocks: chunk(txs, TRANSFERS_PER_BLOCK) };
}

/** `blocks` full blocks of ERC-20 `transfer` calls from 560 holders to fresh recipients. */
export function erc20Workload(chainId: bigint, blocks: number): Workload {
  const { runtime, solcVersion } = compileToken();
  const token = keccak256(new TextEncoder().encode('xone-bench-token')).slice(12);
  const holders = Array.from({ length: ERC20_PER_BLOCK }, (_, i) => testingAddress(10_000 + i));
  const alloc: Array<[Uint8Array, AllocAccount]> = holders.map((h) => [h, { balance: 1000n * ETH }]);
  alloc.push([
    token,
    { balance: 0n, code: runtime, storage: holders.map((h) => [balanceSlot(h), new Uint8Array([0x0f, 0xff, 0xff])] as const) },
  ]);
  const out: Transaction[][] = [];
  for (let b = 0; b < blocks; b++) {
    const txs: Transaction[] = [];
    for (let i = 0; i < ERC20_PER_BLOCK; i++) {
      const to = keccak256(new TextEncoder().encode(`xone-bench-erc20-recipient-${b}-${i}`)).slice(12);
      txs.push(
        signTransaction(
          {
            type: 2,
            chainId,
            nonce: BigInt(b),
            maxFeePerGas: MAX_FEE,
            maxPriorityFeePerGas: TIP,
            gasLimit: 70_000n,
            to: token,
            value: 0n,
            data: transferCalldata(to, 1n),
          },
          testingPrivateKey(10_000 + i),
        ),
      );
    }
    out.push(txs);
  }
  return { alloc, blocks: out, solcVersion };
}
