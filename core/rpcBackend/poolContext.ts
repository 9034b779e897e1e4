/**
 * What the transaction pool validates against, read from the store: the head block's account state and the rules
 * of the block that would come next (its fork, EIP-1559 base fee and gas limit).
 */
import { forkAt, isForkActive, type ChainConfig } from '../chain/forks.ts';
import type { Header } from '../chain/header/index.ts';
import { expectedBaseFee } from '../exec/header/baseFee.ts';
import { HistoricalState } from '../state/store/history.ts';
import type { ChainReader } from '../store/index.ts';
import type { PoolChainContext, PoolStateReader } from '../txpool/index.ts';

/** Account nonces and balances after the block numbered `number`. */
export function poolStateAt(reader: ChainReader, number: bigint): PoolStateReader {
  const state = new HistoricalState(reader, Number(number));
  return {
    nonce: (address) => state.getAccount(address)?.nonce ?? 0n,
    balance: (address) => state.getAccount(address)?.balance ?? 0n,
  };
}

/**
 * The pending block's rules on top of `head` for a block sealed at `nowSeconds` (never before head + 1 s): its fork
 * (a time-based fork may start with it), EIP-1559 base fee from the head, and the head's gas limit.
 */
export function pendingBlockContext(config: ChainConfig, head: Header, nowSeconds: bigint): PoolChainContext {
  const timestamp = nowSeconds > head.timestamp ? nowSeconds : head.timestamp + 1n;
  const parentFork = forkAt(config, Number(head.number), Number(head.timestamp));
  const fork = forkAt(config, Number(head.number) + 1, Number(timestamp));
  return {
    fork,
    chainId: config.chainId,
    baseFee: isForkActive(fork, 'London') ? expectedBaseFee(head, parentFork) : undefined,
    blockGasLimit: head.gasLimit,
  };
}
