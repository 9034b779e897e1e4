/**
 * Block RLP: [header, transactions, ommers] and from Shanghai [header, transactions, ommers, withdrawals]
 * (https://github.com/ethereum/go-ethereum/blob/master/core/types/block.go, extblock). Decoding is strict: canonical
 * RLP throughout, exact part counts, every field checked by its codec with errors naming it, and withdrawals present
 * exactly when the header has a withdrawalsRoot. The header keeps its exact bytes (a copy) so the block hash needs no
 * re-encoding.
 */
import { decodeRlp, encodeRlp, encodeRlpListOfEncoded, expectList, splitRlpStream, type RlpItem } from '../../primitives/rlp.ts';
import type { HeaderCodec } from '../header/codec.ts';
import { ethereumHeaderCodec } from '../header/ethereumCodec.ts';
import type { Header } from '../header/types.ts';
import { decodeTransactionFromBlockItem, type Transaction } from '../transaction/index.ts';
import { decodeWithdrawal, withdrawalFields, type Withdrawal } from '../withdrawal.ts';
import { BlockError } from './errors.ts';
import type { Block, BlockBody } from './types.ts';

const defaultCodec = ethereumHeaderCodec as HeaderCodec<never>;

/**
 * A transaction as its block-body list element, already encoded: a legacy envelope is itself the RLP list, a typed
 * one is wrapped as a byte string. Same bytes as encodeRlp(encodeTransactionForBlock(tx)) without decoding `raw`.
 */
export function encodeTransactionItem(tx: Transaction): Uint8Array {
  return tx.type === 0 ? tx.raw : encodeRlp(tx.raw);
}

function decodeTransactions(item: RlpItem, what: string): Transaction[] {
  return expectList(item, what).map((t, i) => {
    try {
      return decodeTransactionFromBlockItem(t);
    } catch (err) {
      const e = err as Error & { code?: string };
      throw new BlockError('BLOCK_BAD_TRANSACTION', `${what}[${i}]: ${e.message}`, { index: i, cause: e.code ?? e.name });
    }
  });
}

function decodeWithdrawals(item: RlpItem, what: string): Withdrawal[] {
  return expectList(item, what).map((w, i) => decodeWithdrawal(w, `${what}[${i}]`));
}

function checkWithdrawalsPresence(header: Header, withdrawals: Withdrawal[] | undefined, what: string): void {
  if ((header.withdrawalsRoot !== undefined) !== (withdrawals !== undefined)) {
    throw new BlockError(
      'BLOCK_WITHDRAWALS_PRESENCE',
      withdrawals
        ? `${what}: withdrawals list present but the header has no withdrawalsRoot`
        : `${what}: header has a withdrawalsRoot but the withdrawals list is missing`,
      { what },
    );
  }
}

/** Raw bytes of each element of the RLP list `bytes` (already validated by decodeRlp). */
function rawListElements(bytes: Uint8Array): Uint8Array[] {
  const b = bytes[0];
  return splitRlpStream(bytes.subarray(b < 0xf8 ? 1 : 1 + (b - 0xf7)));
}

/** Decodes a full block. */
export function decodeBlock<H extends Header = Header>(bytes: Uint8Array, codec: HeaderCodec<H> = defaultCodec): Block<H> {
  const parts = expectList(decodeRlp(bytes), 'block');
  if (parts.length !== 3 && parts.length !== 4) {
    throw new BlockError(
      'BLOCK_FIELD_COUNT',
      `block: expected 3 or 4 parts (header, transactions, ommers[, withdrawals]), got ${parts.length}`,
      { parts: parts.length },
    );
  }
  // The header is decoded from its own copy (~600 bytes) so a header kept in a cache does not pin the whole block buffer.
  const headerRlp = rawListElements(bytes)[0].slice();
  const header = codec.decode(decodeRlp(headerRlp), headerRlp);
  const block: Block<H> = {
    header,
    transactions: decodeTransactions(parts[1], 'block.transactions'),
    ommers: expectList(parts[2], 'block.ommers').map((o) => codec.decode(o)),
  };
  if (parts.length === 4) block.withdrawals = decodeWithdrawals(parts[3], 'block.withdrawals');
  checkWithdrawalsPresence(header, block.withdrawals, 'block');
  return block;
}

function bodyParts<H extends Header>(body: BlockBody<H>, codec: HeaderCodec<H>): Uint8Array[] {
  const parts = [
    encodeRlpListOfEncoded(body.transactions.map(encodeTransactionItem)),
    encodeRlpListOfEncoded(body.ommers.map((o) => codec.encode(o))),
  ];
  if (body.withdrawals) parts.push(encodeRlp(body.withdrawals.map(withdrawalFields)));
  return parts;
}

/** Encodes a full block (the header from its kept RLP when it has one). */
export function encodeBlock<H extends Header = Header>(block: Block<H>, codec: HeaderCodec<H> = defaultCodec): Uint8Array {
  checkWithdrawalsPresence(block.header, block.withdrawals, 'block');
  return encodeRlpListOfEncoded([codec.encode(block.header), ...bodyParts(block, codec)]);
}

/** Encodes a body: [transactions, ommers] or [transactions, ommers, withdrawals] (what the store keeps per block). */
export function encodeBlockBody<H extends Header = Header>(body: BlockBody<H>, codec: HeaderCodec<H> = defaultCodec): Uint8Array {
  return encodeRlpListOfEncoded(bodyParts(body, codec));
}

/** Decodes a body and checks withdrawals presence against the block's header. */
export function decodeBlockBody<H extends Header = Header>(
  bytes: Uint8Array,
  header: H,
  codec: HeaderCodec<H> = defaultCodec,
): BlockBody<H> {
  const parts = expectList(decodeRlp(bytes), 'body');
  if (parts.length !== 2 && parts.length !== 3) {
    throw new BlockError('BLOCK_FIELD_COUNT', `body: expected 2 or 3 parts (transactions, ommers[, withdrawals]), got ${parts.length}`, {
      parts: parts.length,
    });
  }
  const body: BlockBody<H> = {
    transactions: decodeTransactions(parts[0], 'body.transactions'),
    ommers: expectList(parts[1], 'body.ommers').map((o) => codec.decode(o)),
  };
  if (parts.length === 3) body.withdrawals = decodeWithdrawals(parts[2], 'body.withdrawals');
  checkWithdrawalsPresence(header, body.withdrawals, 'body');
  return body;
}
