/**
 * What the transaction pool validates against, read from the store: the head block's account state and the rules
 * of the block that would come next (its fork, EIP-1559 base fee and gas limit).
 */
import { forkAt, isForkActive, type ChainConfig } from '../../chain/forks.ts';
import type { Header } from '../../chain/header/index.ts';
import { expectedBaseFee } from '../../exec/header/baseFee.ts';
import { HistoricalState } from '../../state/store/history.ts';
import type { ChainReader } from '../../store/index.ts';
import type { PoolChainContext, PoolStateReader } from '../../txpool/index.ts';

/** Account nonces and balances after the block numbered `number`. */
export function poolStateAt(reader: ChainReader, number: bigint): PoolStateReader {
  const state = new HistoricalState(reader.db, Number(number));
  return {
    nonce: (address) => state.getAccount(address)?.nonce ?? 0n,
    balance: (address) => state.getAccount(address)?.balance ?? 0n,
  };
}

/**
 * The pending block's rules on top of `head`. Its timestamp is not known yet; head + 1 s is the earliest it can be,
 * which is what decides a time-based fork the pool must already apply.
 */
export function pendingBlockContext(config: ChainConfig, head: Header): PoolChainContext {
  const parentFork = forkAt(config, Number(head.number), Number(head.timestamp));
  const fork = forkAt(config, Number(head.number) + 1, Number(head.timestamp) + 1);
  return {
    fork,
    chainId: config.chainId,
    baseFee: isForkActive(fork, 'London') ? expectedBaseFee(head, parentFork) : undefined,
    blockGasLimit: head.gasLimit,
  };
}
