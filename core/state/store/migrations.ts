/**
 * The migrations a datadir holding state needs. Since the state tables (m0002) joined the store's own list, this is
 * the store's `MIGRATIONS`; the name stays for the callers that open state datadirs.
 */
import { MIGRATIONS, type Migration } from '../../store/index.ts';

export const STATE_MIGRATIONS: readonly Migration[] = MIGRATIONS;
