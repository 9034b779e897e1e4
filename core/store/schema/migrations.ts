/**
 * The ordered list of schema migrations. Append only: to add tables (e.g. execution state: accounts, storage, code,
 * change sets, trie nodes), add a file `mNNNNName.ts` exporting a `Migration` with the next version and append it
 * here. Never edit or reorder a released entry; the version table records each applied step by number and name.
 */
import type { Migration } from './migration.ts';
import { m0001Chain } from './m0001Chain.ts';
import { m0002State } from './m0002State.ts';
import { m0003Senders } from './m0003Senders.ts';
import { m0004SideChains } from './m0004SideChains.ts';

export type { Migration } from './migration.ts';

/** Every migration, in version order (version i+1 at index i). */
export const MIGRATIONS: readonly Migration[] = [m0001Chain, m0002State, m0003Senders, m0004SideChains];
