/**
 * genesis.json `config` keys (geth's names) that schedule every block-numbered fork, Homestead through London, at
 * block 0: the start of each test chain's config. The time-scheduled forks (Shanghai on) and the consensus section
 * are each test's own.
 */
export const BLOCK_FORKS_AT_GENESIS = {
  homesteadBlock: 0,
  eip150Block: 0,
  eip155Block: 0,
  eip158Block: 0,
  byzantiumBlock: 0,
  constantinopleBlock: 0,
  petersburgBlock: 0,
  istanbulBlock: 0,
  berlinBlock: 0,
  londonBlock: 0,
} as const;
