/** The chain thread's message protocol: serializable requests and replies (structured clone keeps bigint and bytes). */
import type { Header } from '../chain/header/index.ts';
import type { Durability } from '../store/index.ts';
import type { ChainServiceOptions, HeadUpdate, ProduceRequest, ProduceResult, SealPlan } from './chainService.ts';

/** What the main thread can ask the chain thread to do; each is one method of ChainService. */
export interface ChainApi {
  head(): { number: bigint; hash: Uint8Array; header: Header; td: bigint };
  durability(): Durability;
  canonicalHash(number: bigint): Uint8Array | undefined;
  hasBlock(hash: Uint8Array): boolean;
  sealPlan(): SealPlan;
  produce(request: ProduceRequest): ProduceResult;
  importBlocks(rlps: Uint8Array[]): HeadUpdate[];
  steady(): void;
  checkpoint(): boolean;
  unwindTo(number: bigint): void;
  warmUp(): Promise<{ transactions: number }>;
}

export type ChainMethod = keyof ChainApi;

export interface ChainRequest {
  id: number;
  method: ChainMethod;
  args: unknown[];
}

export type ChainReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { name: string; code?: string; message: string; meta?: Record<string, unknown> } };

export type ChainWorkerData = ChainServiceOptions;
