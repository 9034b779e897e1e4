/**
 * The dev chain's test-node controls behind evm_* / anvil_* / hardhat_* (DevView): mining on demand, automine, time
 * travel, snapshots, state edits (sealed at once, decision 0023), header fields chosen by the user, impersonation,
 * state dumps and reset. Every change of the chain goes through the producer's one queue, so blocks, edits and
 * unwinds never interleave. Shapes follow anvil; docs/cli.md lists where the dev chain differs.
 */
import { type Header, headerHash } from '../chain/header/index.ts';
import type { DevHeaderFields } from '../chainService/chainService.ts';
import type { ChainThread } from '../chainService/chainThread.ts';
import { RpcError } from '../rpc/errors.ts';
import type { DevSnapshot, DevStateEdit, DevView } from '../rpc/interface.ts';
import type { DevAccounts } from '../rpcBackend/devAccounts.ts';
import { decodeStateDump, encodeStateDump } from '../rpcBackend/devStateDump.ts';
import { dumpAccounts } from '../state/store/dumpAccounts.ts';
import type { ReadOnlyChainStore } from '../store/index.ts';
import type { TxPool } from '../txpool/index.ts';
import type { MiningMode, Producer } from './producer.ts';

/** What the controls need from the node. */
export interface DevNodeHandle {
  producer: Producer | undefined;
  chain: ChainThread;
  pool: TxPool;
  reader: ReadOnlyChainStore;
  accounts: DevAccounts | undefined;
  head(): Header;
  /** Re-reads the head from the chain thread after an unwind and tells the pool. */
  reloadHead(): Promise<void>;
  /** Seals one block (producer queue already held); `edits` make it an edit-only block. */
  produceBlock(timestamp?: bigint, edits?: DevStateEdit[]): Promise<void>;
}

/** What the next block takes from the dev settings (see `XoneNode.produceBlock`). */
export interface NextBlockSettings {
  timestamp: bigint;
  header?: DevHeaderFields;
}

const nowSeconds = (): bigint => BigInt(Math.floor(Date.now() / 1000));

/** Hardhat's interval: a whole number of ms in [min, max], each equally likely for `random()` uniform in [0, 1). */
export function waitInRange([min, max]: readonly [number, number], random: () => number): number {
  return min + Math.floor(random() * (max - min + 1));
}

export class DevControls implements DevView {
  private readonly taken = new Map<bigint, DevSnapshot>();
  private nextSnapshot = 1n;
  /** Seconds added to the wall clock for block timestamps (evm_increaseTime, and time set by a chosen timestamp). */
  private timeOffset = 0n;
  private nextTimestamp: bigint | undefined;
  private nextBaseFee: bigint | undefined;
  private gasLimit: bigint | undefined;
  private coinbaseAddress: Uint8Array | undefined;
  /** evm_setIntervalMining's wait between blocks: [min, max] ms (equal for one number). */
  private intervalMs: readonly [number, number] | undefined;
  /** anvil_setBlockTimestampInterval: seconds between a block's and its parent's timestamps, in place of the clock. */
  private timestampInterval: bigint | undefined;

  constructor(
    private readonly node: DevNodeHandle,
    private readonly periodSeconds: bigint,
  ) {}

  /**
   * The timestamp and header fields of the next block. Chosen timestamps (evm_mine's, evm_setNextBlockTimestamp's)
   * are kept unless Clique's period forbids them (at least `period` seconds after the parent); later blocks continue
   * from them, as on anvil.
   */
  nextBlock(parent: Header, requested?: bigint): NextBlockSettings {
    const chosen = requested ?? this.nextTimestamp;
    const min = parent.timestamp + (this.periodSeconds > 0n ? this.periodSeconds : 1n);
    const clock = this.timestampInterval !== undefined ? parent.timestamp + this.timestampInterval : nowSeconds() + this.timeOffset;
    let timestamp = chosen ?? clock;
    if (timestamp < min) timestamp = min;
    const header: DevHeaderFields = {};
    if (this.nextBaseFee !== undefined) header.baseFeePerGas = this.nextBaseFee;
    if (this.gasLimit !== undefined) header.gasLimit = this.gasLimit;
    if (this.coinbaseAddress !== undefined) header.coinbase = this.coinbaseAddress;
    return { timestamp, ...(Object.keys(header).length > 0 ? { header } : {}) };
  }

  /** Seconds the dev clock runs ahead of the wall clock (interval mining times its slots by it). */
  get clockOffsetSeconds(): bigint {
    return this.timeOffset;
  }

  /** After a block was sealed with `settings`: one-shot settings are spent, a chosen time becomes the clock. */
  blockSealed(settings: NextBlockSettings, chosen: boolean): void {
    if (chosen || this.nextTimestamp !== undefined) this.timeOffset = settings.timestamp - nowSeconds();
    this.nextTimestamp = undefined;
    if (settings.header?.baseFeePerGas !== undefined) this.nextBaseFee = undefined;
  }

  private get producer(): Producer {
    const p = this.node.producer;
    if (!p) throw new RpcError('SERVER_ERROR', 'this node does not produce blocks');
    return p;
  }

  async mine(blocks: number, timestamp?: bigint, interval?: bigint): Promise<void> {
    const producer = this.producer;
    let last: Promise<void> = Promise.resolve();
    for (let i = 0; i < blocks; i++) {
      const first = i === 0;
      last = producer.enqueue(() =>
        this.node.produceBlock(first ? timestamp : interval !== undefined ? this.node.head().timestamp + interval : undefined),
      );
    }
    await last;
  }

  setAutomine(enabled: boolean): void {
    const producer = this.producer;
    // anvil keeps its interval miner when automine is switched off (evm_setAutomine false while interval mining seals
    // on); true replaces it with automine there too.
    if (enabled) producer.setMode('automine' as MiningMode);
    else if (producer.miningMode !== 'interval') producer.setMode('manual');
  }

  /**
   * Interval mining at `ms` instead of Clique's period (anvil's --block-time): the producer's interval mode with the
   * dev chain's own wait (see `XoneNode.planSeal`); 0 stops it and leaves mining to evm_mine.
   */
  setIntervalMining(ms: number | readonly [number, number]): void {
    const range: readonly [number, number] = typeof ms === 'number' ? [ms, ms] : ms;
    const on = range[1] > 0;
    this.intervalMs = on ? range : undefined;
    this.producer.setMode(on ? 'interval' : 'manual');
  }

  /**
   * Draws the wait before the next interval-mined block from evm_setIntervalMining's range, or undefined when it set
   * none: each call is a new draw (Hardhat's [min, max] draws one per block), so call it once per block.
   */
  nextIntervalWaitMs(): number | undefined {
    return this.intervalMs && waitInRange(this.intervalMs, Math.random);
  }

  setTime(timestamp: bigint): bigint {
    this.nextTimestamp = undefined;
    this.timeOffset = timestamp - nowSeconds();
    return this.timeOffset;
  }

  setBlockTimestampInterval(seconds: bigint | undefined): boolean {
    const had = this.timestampInterval !== undefined;
    this.timestampInterval = seconds;
    return had;
  }

  getAutomine(): boolean {
    return this.node.producer?.miningMode === 'automine';
  }

  snapshot(): bigint {
    const id = this.nextSnapshot++;
    const head = this.node.head();
    this.taken.set(id, { id, number: head.number, hash: headerHash(head) });
    return id;
  }

  snapshots(): readonly DevSnapshot[] {
    return [...this.taken.values()];
  }

  async revert(id: bigint): Promise<boolean> {
    const taken = this.taken.get(id);
    if (taken === undefined || !this.node.producer) return false;
    await this.unwindTo(taken.number);
    // A snapshot is used once, as in Hardhat and anvil; later ones are gone too.
    for (const key of [...this.taken.keys()]) if (key >= id) this.taken.delete(key);
    return true;
  }

  increaseTime(seconds: bigint): bigint {
    this.timeOffset += seconds;
    return this.timeOffset;
  }

  setNextBlockTimestamp(timestamp: bigint): void {
    const parent = this.node.head().timestamp;
    if (timestamp <= parent)
      throw new RpcError('SERVER_ERROR', `Timestamp error: ${timestamp} is lower than or equal to previous block's timestamp`);
    this.nextTimestamp = timestamp;
  }

  setNextBlockBaseFee(baseFee: bigint): void {
    if (this.node.head().baseFeePerGas === undefined)
      throw new RpcError('SERVER_ERROR', 'anvil_setNextBlockBaseFeePerGas needs London (EIP-1559) to be active');
    this.nextBaseFee = baseFee;
  }

  setBlockGasLimit(gasLimit: bigint): void {
    if (gasLimit < 5000n) throw new RpcError('SERVER_ERROR', `gas limit ${gasLimit} is below the minimum 5000`);
    this.gasLimit = gasLimit;
  }

  setCoinbase(address: Uint8Array): void {
    this.coinbaseAddress = address.some((b) => b !== 0) ? address : undefined;
  }

  coinbase(): Uint8Array {
    return this.coinbaseAddress ?? new Uint8Array(20);
  }

  dropTransaction(hash: Uint8Array): Uint8Array | null {
    if (!this.node.pool.get(hash)) return null;
    this.node.pool.remove(hash);
    return hash;
  }

  impersonate(address: Uint8Array, on: boolean): void {
    this.accounts.impersonate(address, on);
  }

  autoImpersonate(on: boolean): void {
    this.accounts.autoImpersonate(on);
  }

  private get accounts(): DevAccounts {
    const a = this.node.accounts;
    if (!a) throw new RpcError('SERVER_ERROR', 'this node holds no accounts');
    return a;
  }

  dumpState(): Uint8Array {
    const h = this.node.head();
    return encodeStateDump(
      { number: h.number, timestamp: h.timestamp, gasLimit: h.gasLimit, baseFee: h.baseFeePerGas, coinbase: h.coinbase },
      dumpAccounts(this.node.reader),
    );
  }

  async loadState(dump: Uint8Array): Promise<void> {
    const edits = decodeStateDump(dump);
    if (edits.length > 0) await this.editStates(edits);
  }

  editState(edit: DevStateEdit): Promise<void> {
    return this.editStates([edit]);
  }

  /** Sealed into a block of their own right away (docs/decisions/0023-dev-state-edits.md), after queued chain work. */
  private async editStates(edits: DevStateEdit[]): Promise<void> {
    let failure: unknown;
    await this.producer.enqueue(() => this.node.produceBlock(undefined, edits).catch((err: unknown) => void (failure = err)));
    if (failure !== undefined) throw failure;
  }

  async reset(): Promise<void> {
    await this.unwindTo(0n);
    this.node.pool.clear();
    this.taken.clear();
    this.timeOffset = 0n;
    this.nextTimestamp = undefined;
    this.nextBaseFee = undefined;
    this.gasLimit = undefined;
    this.coinbaseAddress = undefined;
    this.timestampInterval = undefined;
    this.node.accounts?.reset();
  }

  private async unwindTo(number: bigint): Promise<void> {
    let failure: unknown;
    await this.producer.enqueue(async () => {
      try {
        await this.node.chain.unwindTo(number);
        await this.node.reloadHead();
      } catch (err) {
        failure = err;
      }
    });
    if (failure !== undefined) throw failure;
  }
}
