/** Every schema migration a node's datadir gets: chain (1), state (2), block senders (3) — the store's full list. */
import { MIGRATIONS, type Migration } from '../store/index.ts';

export const NODE_MIGRATIONS: readonly Migration[] = MIGRATIONS;
