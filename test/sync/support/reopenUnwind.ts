/**
 * A SyncTarget whose `unwind` works today, for the reorg test: ChainService has no unwind yet (its importer keeps
 * the head and the state trie in memory), so this closes the service, unwinds chain and state in one durable store
 * transaction (`ChainStore.unwind` + `unwindState` from the change sets), and reopens the service on the datadir.
 * Everything is real; the node needs the same as a `ChainService.unwind(number)`.
 */
import type { Genesis } from '../../../core/chain/genesis/index.ts';
import { ChainService } from '../../../core/chainService/chainService.ts';
import { NODE_MIGRATIONS } from '../../../core/chainService/migrations.ts';
import { unwindState } from '../../../core/state/store/history.ts';
import { ChainStore } from '../../../core/store/index.ts';
import type { SyncTarget } from '../../../core/sync/target.ts';

/** A target over a service that reopens on unwind; `current()` is the live service. */
export function reopeningTarget(datadir: string, genesis: Genesis, batch: number): { target: SyncTarget; current: () => ChainService } {
  let service = ChainService.open({ datadir, genesis, batch });
  const target: SyncTarget = {
    head: () => service.head(),
    canonicalHash: (n) => service.store.getCanonicalHash(Number(n)),
    importBlocks: (rlps) => service.importBlocks(rlps),
    steady: () => service.steady(),
    unwind: (n) => {
      service.close();
      const store = ChainStore.open({ datadir, batch: 0 }, { migrations: NODE_MIGRATIONS });
      try {
        store.unwind(Number(n), (db) => unwindState(db, Number(n)));
      } finally {
        store.close();
      }
      service = ChainService.open({ datadir, genesis, batch });
    },
  };
  return { target, current: () => service };
}
