/**
 * A block: header, transactions, ommers (always empty under Clique and after the merge, but part of the format) and,
 * from Shanghai, withdrawals. The body is everything but the header, stored and served separately.
 */
import type { Header } from '../header/types.ts';
import type { Transaction } from '../transaction/types.ts';
import type { Withdrawal } from '../withdrawal.ts';

export interface BlockBody<H extends Header = Header> {
  transactions: Transaction[];
  ommers: H[];
  /** Present exactly when the header has a withdrawalsRoot. */
  withdrawals?: Withdrawal[];
}

export interface Block<H extends Header = Header> extends BlockBody<H> {
  header: H;
}
