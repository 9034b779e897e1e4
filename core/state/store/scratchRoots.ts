/**
 * State roots of blocks that are never stored (eth_simulateV1): a StateRootComputer opened at a canonical block's
 * root over the read-only connection, with every node it makes kept in memory and dropped with it. Works at any
 * block whose state is kept (trieAtBlock rebuilds a batch-interior one).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { connectionOf, type SqlHandle } from '../../store/connection.ts';
import { MemoryNodeStore, type TrieNodeStore, type TrieNodeWrite } from '../../trie/index.ts';
import { StateRootComputer } from '../stateRoot.ts';
import { StateError } from '../errors.ts';
import { stateRootAt } from './history.ts';
import { trieAtBlock } from './trieAt.ts';

class ScratchNodeStore implements TrieNodeStore {
  private readonly written = new MemoryNodeStore();
  private readonly select: BetterSqlite3.Statement<[Uint8Array], { node: Uint8Array }>;
  constructor(db: BetterSqlite3.Database) {
    this.select = db.prepare('SELECT node FROM trie_nodes WHERE hash = ?');
  }
  getNode(hash: Uint8Array): Uint8Array | undefined {
    const mine = this.written.getNode(hash);
    if (mine !== undefined) return mine;
    const row = this.select.get(hash);
    return row === undefined ? undefined : new Uint8Array(row.node);
  }
  putNodes(nodes: readonly TrieNodeWrite[]): void {
    this.written.putNodes(nodes);
  }
}

/** A root computer for blocks built on top of canonical block `number`; nothing it computes reaches the store. */
export function scratchRootsAt(handle: SqlHandle, number: number): StateRootComputer {
  const root = stateRootAt(handle, number);
  if (root === undefined) throw new StateError('STATE_UNAVAILABLE', `state at block ${number} is not available`, { number });
  const { nodes } = trieAtBlock(handle, new ScratchNodeStore(connectionOf(handle)), number, root);
  return new StateRootComputer(nodes, root);
}
