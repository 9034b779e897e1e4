/** Every schema migration a node's datadir gets: chain (1), state (2), block senders (3). */
import { m0003Senders } from '../../store/schema/m0003Senders.ts';
import { STATE_MIGRATIONS } from '../../state/store/migrations.ts';
import type { Migration } from '../../store/index.ts';

export const NODE_MIGRATIONS: readonly Migration[] = STATE_MIGRATIONS.some((m) => m.name === m0003Senders.name)
  ? STATE_MIGRATIONS
  : [...STATE_MIGRATIONS, m0003Senders];
