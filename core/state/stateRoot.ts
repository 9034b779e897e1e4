/**
 * Incremental state root: the secure account trie stays open across blocks, and each block's `StateChanges` updates
 * only the paths it touched (plus the storage tries of accounts whose slots changed). Nodes hashed on the way are
 * committed to the node store, so any committed root can be reopened (eth_getProof, restarts).
 */
import { keccak256 } from '../primitives/keccak.ts';
import { SecureTrie, type TrieNodeStore } from '../trie/index.ts';
import { encodeStorageLeaf } from '../trie/stateLeaves.ts';
import { EMPTY_TRIE_ROOT, encodeAccount, type AccountState } from './account.ts';
import { GenerationalCache } from './store/generationalCache.ts';

/**
 * Bytes of keccak(address) kept between blocks (senders recur): an entry is a 40-char key and a 32-byte array with its
 * own buffer, measured at ~285 bytes (70k held 20 MB).
 */
const HASHED_KEY_BYTES = 2 << 20;
const HASHED_KEY_ENTRY_BYTES = 290;
/**
 * The open account trie keeps the paths blocks touch decoded (a decoded node costs ~7x its encoding: objects for each
 * child hash); past this many encoded bytes decoded or hashed since the last prune, the commit prunes it to its top
 * TRIE_KEEP_LEVELS levels (273 branches), the rest read again through the node cache when a block reaches it.
 */
const TRIE_PRUNE_BYTES = 4 << 20;
const TRIE_KEEP_LEVELS = 3;
import type { StateChanges } from './interface.ts';
import { bytesOfKey } from './keys.ts';

/** Result of folding one block's changes into the tries. */
export interface RootUpdate {
  /** The new state root. */
  root: Uint8Array;
  /** New storage root of every account whose storage changed, by address key. */
  storageRoots: Map<string, Uint8Array>;
  /**
   * Every account leaf written, by address key: the final record (new storage root included) and its RLP, so the
   * commit stores the bytes the trie hashed instead of encoding each account a second time.
   */
  encoded: Map<string, EncodedAccount>;
}

/** An account record with its RLP (the trie leaf value and the `state_accounts` row). */
export interface EncodedAccount {
  account: AccountState;
  rlp: Uint8Array;
}

/** Owns the open account trie of the head state. */
export class StateRootComputer {
  private trie: SecureTrie;
  private committedRoot: Uint8Array;
  private readonly hashedKeys = new GenerationalCache<string, Uint8Array>(
    HASHED_KEY_BYTES,
    () => HASHED_KEY_ENTRY_BYTES,
    () => new Map(),
  );

  constructor(
    private readonly nodes: TrieNodeStore,
    root: Uint8Array = EMPTY_TRIE_ROOT,
  ) {
    this.trie = new SecureTrie(nodes, root);
    this.committedRoot = root;
  }

  /** The root the trie was last committed or reset to. */
  get root(): Uint8Array {
    return this.committedRoot;
  }

  /**
   * Applies `changes` and commits the touched nodes. `current` gives the final account for an address key whose
   * storage changed but whose account record did not (SSTORE does not rewrite the account).
   */
  apply(changes: StateChanges, current: (addrKey: string) => AccountState | null): RootUpdate {
    const storageRoots = new Map<string, Uint8Array>();
    const encoded = new Map<string, EncodedAccount>();
    const touched = new Set<string>([...changes.accounts.keys(), ...changes.storage.keys(), ...changes.storageCleared]);
    for (const addrKey of touched) {
      const account = changes.accounts.has(addrKey) ? (changes.accounts.get(addrKey) as AccountState | null) : current(addrKey);
      const address = bytesOfKey(addrKey);
      if (account === null) {
        this.trie.trie.delete(this.hashedKey(addrKey, address));
        continue;
      }
      let storageRoot = account.storageRoot;
      const cleared = changes.storageCleared.has(addrKey);
      const slots = changes.storage.get(addrKey);
      if (cleared || slots !== undefined) {
        const storage = new SecureTrie(this.nodes, cleared ? EMPTY_TRIE_ROOT : account.storageRoot);
        if (slots !== undefined) for (const [slotKey, value] of slots) storage.put(bytesOfKey(slotKey), encodeStorageLeaf(value));
        storageRoot = storage.commit();
        storageRoots.set(addrKey, storageRoot);
      }
      const record = storageRoot === account.storageRoot ? account : { ...account, storageRoot };
      const rlp = encodeAccount(record);
      encoded.set(addrKey, { account: record, rlp });
      this.trie.trie.put(this.hashedKey(addrKey, address), rlp);
    }
    const root = this.trie.commit();
    if (this.trie.trie.residentBytes > TRIE_PRUNE_BYTES) this.trie.trie.prune(TRIE_KEEP_LEVELS);
    this.committedRoot = root;
    return { root, storageRoots, encoded };
  }

  /** Between blocks: prunes the decoded trie to its top levels and forgets the hashed keys (an idle node's memory). */
  release(): void {
    this.trie.trie.prune(TRIE_KEEP_LEVELS);
    this.hashedKeys.clear();
  }

  /** keccak256(address), remembered per address key: senders recur block after block. */
  private hashedKey(addrKey: string, address: Uint8Array): Uint8Array {
    let hashed = this.hashedKeys.get(addrKey);
    if (hashed === undefined) {
      hashed = keccak256(address);
      this.hashedKeys.set(addrKey, hashed);
    }
    return hashed;
  }

  /** Drops uncommitted work and reopens the trie at `root` (after a rejected block). */
  reset(root: Uint8Array): void {
    this.trie = new SecureTrie(this.nodes, root);
    this.committedRoot = root;
  }

  /** Account proof for eth_getProof at the current root. */
  accountProof(address: Uint8Array): Uint8Array[] {
    return this.trie.createProof(address);
  }
}
