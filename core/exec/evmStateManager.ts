/**
 * Adapter that lets @ethereumjs/evm run against our `JournaledState` through its `StateManagerInterface`
 * (docs/decisions: EVM choice). The EVM owns warm/cold tracking and EIP-161 touch bookkeeping in its own Journal;
 * this class only answers reads, applies writes and forwards checkpoints, converting between ethereumjs `Account`
 * objects and our immutable `AccountState` records.
 */
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { Account, type Address } from '@ethereumjs/util';
import { EMPTY_ACCOUNT, EMPTY_TRIE_ROOT, type AccountState } from '../state/account.ts';
import type { JournaledState } from '../state/journaledState.ts';
import { trimStorageValue } from '../state/keys.ts';

function toEthjs(account: AccountState): Account {
  return new Account(account.nonce, account.balance, account.storageRoot, account.codeHash);
}

function fromEthjs(account: Account): AccountState {
  return { nonce: account.nonce, balance: account.balance, storageRoot: account.storageRoot, codeHash: account.codeHash };
}

/** `StateManagerInterface` over a `JournaledState`. Every method answers synchronously behind a resolved promise. */
export class EvmStateManager implements StateManagerInterface {
  readonly originalStorageCache: { get(address: Address, key: Uint8Array): Promise<Uint8Array>; clear(): void };

  constructor(public state: JournaledState) {
    this.originalStorageCache = {
      get: async (address, key) => this.state.getOriginalStorage(address.bytes, key),
      clear: () => this.state.clearOriginalStorage(),
    };
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const account = this.state.getAccount(address.bytes);
    return account === undefined ? undefined : toEthjs(account);
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) {
      this.state.putAccount(address.bytes, null);
      return;
    }
    this.state.putAccount(address.bytes, fromEthjs(account));
  }

  async deleteAccount(address: Address): Promise<void> {
    this.state.putAccount(address.bytes, null);
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const current = this.state.getAccount(address.bytes) ?? EMPTY_ACCOUNT;
    this.state.putAccount(address.bytes, {
      nonce: fields.nonce ?? current.nonce,
      balance: fields.balance ?? current.balance,
      storageRoot: fields.storageRoot ?? current.storageRoot,
      codeHash: fields.codeHash ?? current.codeHash,
    });
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.state.putCode(address.bytes, value);
  }

  async getCode(address: Address): Promise<Uint8Array> {
    return this.state.getCode(address.bytes);
  }

  async getCodeSize(address: Address): Promise<number> {
    return this.state.getCode(address.bytes).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    return this.state.getStorage(address.bytes, key);
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    this.state.putStorage(address.bytes, key, trimStorageValue(value));
  }

  async clearStorage(address: Address): Promise<void> {
    this.state.clearStorage(address.bytes);
    const account = this.state.getAccount(address.bytes);
    if (account !== undefined) this.state.putAccount(address.bytes, { ...account, storageRoot: EMPTY_TRIE_ROOT });
  }

  // The synchronous storage calls of the fast interpreter's SLOAD/SSTORE (evm/storageOps.ts `SyncStorage`): the
  // same reads and writes as getStorage, originalStorageCache.get and putStorage plus the account read after it.

  storageNow(address: Address, key: Uint8Array): Uint8Array {
    return this.state.getStorage(address.bytes, key);
  }

  originalStorageNow(address: Address, key: Uint8Array): Uint8Array {
    return this.state.getOriginalStorage(address.bytes, key);
  }

  putStorageNow(address: Address, key: Uint8Array, value: Uint8Array): Account | undefined {
    this.state.putStorage(address.bytes, key, trimStorageValue(value));
    const account = this.state.getAccount(address.bytes);
    return account === undefined ? undefined : toEthjs(account);
  }

  async checkpoint(): Promise<void> {
    this.state.checkpoint();
  }

  async commit(): Promise<void> {
    this.state.commit();
  }

  async revert(): Promise<void> {
    this.state.revert();
  }

  /** Roots are computed once per block by the executor, never mid-transaction. */
  async getStateRoot(): Promise<Uint8Array> {
    throw new Error('state root is computed per block by core/state, not through the EVM');
  }

  async setStateRoot(): Promise<void> {
    throw new Error('state roots are selected by opening a state view, not through the EVM');
  }

  async hasStateRoot(): Promise<boolean> {
    return false;
  }

  clearCaches(): void {}

  shallowCopy(): StateManagerInterface {
    return this;
  }
}
