/**
 * The block header as the Yellow Paper (section 4.3) defines it, with London's `baseFeePerGas` (EIP-1559),
 * Shanghai's `withdrawalsRoot` (EIP-4895), Cancun's `blobGasUsed`/`excessBlobGas` (EIP-4844) and
 * `parentBeaconBlockRoot` (EIP-4788), and Prague's `requestsHash` (EIP-7685). Integer fields are bigints, as on `Transaction`. A decoded header keeps
 * its exact RLP in `rlp`, so hashing never re-encodes; treat headers as immutable values (build a new object, without
 * `rlp`, to change one).
 */
import { KECCAK_EMPTY, keccak256 } from '../../primitives/keccak.ts';
import { EMPTY_TRIE_ROOT } from '../../trie/node.ts';

export interface Header {
  parentHash: Uint8Array;
  /** keccak256(RLP(ommers)); `EMPTY_OMMERS_HASH` on every PoA and post-merge block. */
  ommersHash: Uint8Array;
  /** 20 bytes: the fee recipient (Clique: zero, or a vote target). */
  coinbase: Uint8Array;
  stateRoot: Uint8Array;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  /** 256 bytes. */
  logsBloom: Uint8Array;
  difficulty: bigint;
  number: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  /** 32 bytes: mix hash, prevRandao after the merge. */
  mixHash: Uint8Array;
  /** 8 bytes (Clique: a vote, 0x00.. or 0xff..). */
  nonce: Uint8Array;
  /** London onwards. */
  baseFeePerGas?: bigint;
  /** Shanghai onwards. */
  withdrawalsRoot?: Uint8Array;
  /** Cancun onwards: blob gas the block's transactions used (EIP-4844). */
  blobGasUsed?: bigint;
  /** Cancun onwards: the running excess over the blob gas target, which prices blob gas. */
  excessBlobGas?: bigint;
  /** Cancun onwards (EIP-4788); on a Clique chain 32 zero bytes (decision 0033). */
  parentBeaconBlockRoot?: Uint8Array;
  /** Prague onwards: sha256 commitment to the block's execution-layer requests (EIP-7685). */
  requestsHash?: Uint8Array;
  /** The exact RLP this header was decoded from, or of a header the producer sealed (absent on other built headers). */
  rlp?: Uint8Array;
}

/** keccak256(RLP([])): the ommers hash of a block without ommers. */
export const EMPTY_OMMERS_HASH = keccak256(Uint8Array.of(0xc0));
/** Root of an empty transactions, receipts or withdrawals trie. */
export { EMPTY_TRIE_ROOT };
/** keccak256 of empty code. */
export const EMPTY_CODE_HASH = KECCAK_EMPTY;
/** An all-zero logs bloom. */
export const EMPTY_BLOOM = new Uint8Array(256);
