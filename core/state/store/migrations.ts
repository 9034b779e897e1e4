/**
 * The store's migration list with the state tables appended. The chain store takes its migrations as a dependency
 * (`StoreDeps.migrations`); every process that opens a datadir holding state passes this list.
 */
import { MIGRATIONS, type Migration } from '../../store/index.ts';
import { m0002State } from '../../store/schema/m0002State.ts';

/** Chain tables (H3's list) followed by the state tables, unless the list already contains them. */
export const STATE_MIGRATIONS: readonly Migration[] = MIGRATIONS.some((m) => m.name === m0002State.name)
  ? MIGRATIONS
  : [...MIGRATIONS, m0002State];
