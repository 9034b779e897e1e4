/**
 * Imports files of concatenated RLP blocks into a datadir (the body of `xone import`): opens the store with the
 * state migrations, writes genesis when the datadir is new, then feeds every block through `BlockImporter`.
 */
import { readFileSync } from 'node:fs';
import type { Genesis } from '../../chain/genesis/index.ts';
import { bytesToHex, equalBytes } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { decodeRlp, expectList, splitRlpStream } from '../../primitives/rlp.ts';
import { STATE_MIGRATIONS } from '../../state/store/migrations.ts';
import { ChainStore } from '../../store/index.ts';
import { BlockImporter } from './blockImporter.ts';

/** What `importBlocks` needs. */
export interface ImportFilesOptions {
  genesis: Genesis;
  datadir: string;
  files: readonly string[];
  historyBlocks?: number;
  /** Called about twice a second with a progress line (TTY only). */
  progress?: (line: string) => void;
}

/** Result of an import run. */
export interface ImportSummary {
  imported: number;
  skipped: number;
  txs: number;
  gas: bigint;
  seconds: number;
  head: { number: bigint; hash: string };
  /** Reason the import stopped early (first invalid block). */
  error?: string;
  /** One human line: counts, rates and the head. */
  line: string;
}

/** Runs the import; never throws for an invalid block (it is reported in `error`). */
export async function importBlocks(opts: ImportFilesOptions): Promise<ImportSummary> {
  const store = ChainStore.open({ datadir: opts.datadir, batch: 128 }, { migrations: STATE_MIGRATIONS });
  const started = performance.now();
  let imported = 0;
  let skipped = 0;
  let txs = 0;
  let gas = 0n;
  let error: string | undefined;
  let lastProgress = started;
  let importer: BlockImporter | undefined;
  try {
    importer = BlockImporter.open(
      store,
      { header: opts.genesis.genesisHeader, alloc: opts.genesis.alloc },
      { config: opts.genesis.config, historyBlocks: opts.historyBlocks },
    );
    outer: for (const file of opts.files) {
      const blocks = splitRlpStream(readFileSync(file));
      for (const [i, rlp] of blocks.entries()) {
        if (isKnown(store, rlp)) {
          skipped++;
          continue;
        }
        try {
          const r = await importer.importRlp(rlp);
          imported++;
          txs += r.txs;
          gas += r.gasUsed;
        } catch (err) {
          error = `${file}: block ${i}: ${err instanceof Error ? err.message : String(err)}`;
          break outer;
        }
        const now = performance.now();
        if (opts.progress && now - lastProgress > 500) {
          lastProgress = now;
          const s = (now - started) / 1000;
          opts.progress(
            `imported ${imported} blocks (${(imported / s).toFixed(1)} blocks/s, ${(txs / s).toFixed(0)} tx/s), head ${importer.headInfo.header.number}`,
          );
        }
      }
    }
    store.steady();
  } catch (err) {
    error ??= err instanceof Error ? err.message : String(err);
  } finally {
    store.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const head = importer ? { number: importer.headInfo.header.number, hash: bytesToHex(importer.headInfo.hash) } : { number: -1n, hash: '' };
  const line =
    `imported ${imported} blocks, ${txs} txs, ${gas} gas in ${seconds.toFixed(2)} s ` +
    `(${(imported / Math.max(seconds, 1e-9)).toFixed(1)} blocks/s, ${(txs / Math.max(seconds, 1e-9)).toFixed(0)} tx/s); ` +
    `skipped ${skipped} known; head ${head.number} ${head.hash}${error === undefined ? '' : ' (stopped at an invalid block)'}`;
  return { imported, skipped, txs, gas, seconds, head, error, line };
}

/** True when the block is already on the canonical chain (re-running an import is a no-op). */
function isKnown(store: ChainStore, rlp: Uint8Array): boolean {
  try {
    const parts = expectList(decodeRlp(rlp), 'block');
    const headerItem = parts[0];
    if (headerItem === undefined || !Array.isArray(headerItem)) return false;
    const numberBytes = headerItem[8] as Uint8Array;
    let n = 0;
    for (const b of numberBytes) n = n * 256 + b;
    const canonical = store.getCanonicalHash(n);
    if (canonical === undefined) return false;
    // keccak of the header's exact encoding: re-slice it from the block bytes.
    const headerRlp = splitRlpStream(listPayload(rlp))[0] as Uint8Array;
    return equalBytes(canonical, keccak256(headerRlp));
  } catch {
    return false;
  }
}

/** The payload of an RLP list (its items' encodings, concatenated). */
function listPayload(rlp: Uint8Array): Uint8Array {
  const first = rlp[0] as number;
  if (first <= 0xf7) return rlp.subarray(1);
  const lenOfLen = first - 0xf7;
  return rlp.subarray(1 + lenOfLen);
}
