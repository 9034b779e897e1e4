/**
 * The timed half of the execution benchmark: imports a built chain through `BlockImporter` into a fresh datadir
 * with the durable store (follower group commit, real fsyncs), and sums the per-block split.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ChainConfig } from '../../chain/forks.ts';
import type { GenesisAlloc } from '../../chain/genesis/index.ts';
import { BlockImporter } from '../../exec/import/blockImporter.ts';
import { keyOf } from '../../state/keys.ts';
import type { AllocAccount } from '../../state/alloc.ts';
import { STATE_MIGRATIONS } from '../../state/store/migrations.ts';
import { ChainStore } from '../../store/index.ts';
import { decodeBlock, type Block } from '../../chain/block/index.ts';
import { recoveryId, signingHash, type Transaction } from '../../chain/transaction/index.ts';
import type { RecoveryItem, SenderRecovery } from '../../runtime/recovery/index.ts';

function recoveryItem(tx: Transaction): RecoveryItem {
  return { hash: signingHash(tx), r: tx.r, s: tx.s, recovery: recoveryId(tx) };
}
import type { BuiltChain } from './buildChain.ts';

/** Figures of one timed import. */
export interface ImportFigures {
  blocks: number;
  txs: number;
  gas: string;
  seconds: number;
  txPerSec: number;
  mgasPerSec: number;
  msPerTx: number;
  /** Sum over blocks, ms. */
  split: { recoverMs: number; executeMs: number; rootMs: number; commitMs: number; finalSyncMs: number };
  /** The same split in CPU ms of this process (the host is shared: wall time includes waiting for a core). */
  cpuSplit: { recoverMs: number; executeMs: number; rootMs: number; commitMs: number; finalSyncMs: number };
  /** Process CPU seconds for the whole import, and transactions per CPU second. */
  cpuSeconds: number;
  txPerCpuSec: number;
  fastPathTxs: number;
}

function toGenesisAlloc(alloc: Array<[Uint8Array, AllocAccount]>): GenesisAlloc {
  const out: GenesisAlloc = new Map();
  for (const [address, a] of alloc) {
    const storage = new Map<string, Uint8Array>();
    for (const [slot, value] of a.storage ?? []) storage.set(keyOf(slot), value);
    out.set(keyOf(address), { address, nonce: a.nonce ?? 0n, balance: a.balance, code: a.code ?? new Uint8Array(0), storage });
  }
  return out;
}

const round = (x: number, d = 2): number => Number(x.toFixed(d));

/** Imports `chain` into a new datadir under `baseDir`; removes it afterwards. */
export async function importChain(
  baseDir: string,
  config: ChainConfig,
  alloc: Array<[Uint8Array, AllocAccount]>,
  chain: BuiltChain,
  opts: { fastPath?: boolean; recovery?: SenderRecovery } = {},
): Promise<ImportFigures> {
  const datadir = mkdtempSync(join(baseDir, 'xone-bench-exec-'));
  const store = ChainStore.open({ datadir, batch: 128 }, { migrations: STATE_MIGRATIONS });
  try {
    const importer = BlockImporter.open(
      store,
      { header: chain.genesisHeader, alloc: toGenesisAlloc(alloc) },
      { config, fastPath: opts.fastPath },
    );
    const split = { recoverMs: 0, executeMs: 0, rootMs: 0, commitMs: 0, finalSyncMs: 0 };
    const cpuSplit = { recoverMs: 0, executeMs: 0, rootMs: 0, commitMs: 0, finalSyncMs: 0 };
    let fastPathTxs = 0;
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    // With a recovery pool, block i+1's senders are recovered while block i executes (what a follower does).
    const recovery = opts.recovery;
    const start = (i: number): { block: Block; senders?: Promise<Uint8Array[]> } | undefined => {
      const rlp = chain.blocks[i];
      if (rlp === undefined) return undefined;
      const block = decodeBlock(rlp);
      const senders = recovery?.recover(block.transactions.map(recoveryItem));
      senders?.catch(() => undefined);
      return { block, senders };
    };
    let next = start(0);
    for (let i = 0; next !== undefined; i++) {
      const current = next;
      next = start(i + 1);
      const r = await importer.importBlock(current.block, current.senders);
      split.recoverMs += r.timings.recoverMs;
      split.executeMs += r.timings.executeMs;
      split.rootMs += r.timings.rootMs;
      split.commitMs += r.timings.commitMs;
      cpuSplit.recoverMs += r.timings.cpu.recoverMs;
      cpuSplit.executeMs += r.timings.cpu.executeMs;
      cpuSplit.rootMs += r.timings.cpu.rootMs;
      cpuSplit.commitMs += r.timings.cpu.commitMs;
      fastPathTxs += r.fastPathTxs;
    }
    const syncStart = performance.now();
    const syncCpu = process.cpuUsage();
    store.steady();
    split.finalSyncMs = performance.now() - syncStart;
    const syncUsed = process.cpuUsage(syncCpu);
    cpuSplit.finalSyncMs = (syncUsed.user + syncUsed.system) / 1000;
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpuStarted);
    const cpuSeconds = (used.user + used.system) / 1e6;
    return {
      blocks: chain.blocks.length,
      txs: chain.txs,
      gas: chain.gas.toString(),
      seconds: round(seconds, 3),
      txPerSec: Math.round(chain.txs / seconds),
      mgasPerSec: round(Number(chain.gas) / 1e6 / seconds),
      msPerTx: round((seconds * 1000) / chain.txs, 4),
      split: {
        recoverMs: round(split.recoverMs),
        executeMs: round(split.executeMs),
        rootMs: round(split.rootMs),
        commitMs: round(split.commitMs),
        finalSyncMs: round(split.finalSyncMs),
      },
      cpuSplit: {
        recoverMs: round(cpuSplit.recoverMs),
        executeMs: round(cpuSplit.executeMs),
        rootMs: round(cpuSplit.rootMs),
        commitMs: round(cpuSplit.commitMs),
        finalSyncMs: round(cpuSplit.finalSyncMs),
      },
      cpuSeconds: round(cpuSeconds, 3),
      txPerCpuSec: Math.round(chain.txs / cpuSeconds),
      fastPathTxs,
    };
  } finally {
    store.close();
    rmSync(datadir, { recursive: true, force: true });
  }
}
