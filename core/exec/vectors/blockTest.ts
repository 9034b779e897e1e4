/**
 * Runs ethereum/tests BlockchainTests through the real import pipeline: a fresh temporary datadir per test (real
 * SQLite, real segment files), genesis from `genesisBlockHeader` + `pre`, each block from its RLP (seal checks off:
 * the fixtures use NoProof) inserted on whatever stored parent it names, the head chosen by the fork choice the
 * fixtures were filled with (fixtureForkChoice.ts: total difficulty, the earlier branch on a tie, the newest block
 * past the merge), blocks with `expectException` must be refused, then
 * the head must be `lastblockhash`
 * and the state must equal `postState` (compared through its root, with a per-account diff on mismatch) or
 * `postStateHash`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { genesisFromBlockchainTest } from '../../chain/genesis/index.ts';
import { bytesToHex, equalBytes } from '../../primitives/hex.ts';
import { applyAlloc } from '../../state/alloc.ts';
import { MemoryState } from '../../state/memoryState.ts';
import { STATE_MIGRATIONS } from '../../state/store/migrations.ts';
import { ChainStore } from '../../store/index.ts';
import { BlockImporter } from '../import/blockImporter.ts';
import { ChainImporter, decodeBlockRlp } from '../import/chainImporter.ts';
import { headerHash } from '../../chain/header/index.ts';
import { fixtureForkChoice } from './fixtureForkChoice.ts';
import { sealEngineSkip } from './select.ts';
import { allocOf, vAddress, vBig, vBytes, type VectorAccount } from './json.ts';
import type { CaseResult } from './runFiles.ts';

/** Networks `xone blocktest` runs by default (the node's target forks); other cases are skipped, not failed. */
export const DEFAULT_BLOCK_TEST_NETWORKS: readonly string[] = ['London', 'Shanghai', 'Cancun', 'Prague', 'Osaka'];

/** One BlockchainTests case. */
export interface BlockTestJson {
  network: string;
  /** "NoProof" in the fixtures this runner checks; any other engine's cases are skipped (select.ts). */
  sealEngine?: string;
  genesisBlockHeader: unknown;
  pre: Record<string, VectorAccount>;
  blocks: Array<{ rlp: string; expectException?: string }>;
  lastblockhash: string;
  postState?: Record<string, VectorAccount>;
  postStateHash?: string;
}

/** Runs one case if its network is selected (otherwise reports it skipped). */
export async function runBlockTest(
  name: string,
  test: BlockTestJson,
  networks: readonly string[] = DEFAULT_BLOCK_TEST_NETWORKS,
): Promise<CaseResult[]> {
  if (!networks.includes(test.network)) return [{ name, ok: true, skipped: true }];
  const unchecked = sealEngineSkip(test.sealEngine);
  if (unchecked !== undefined) return [{ name, ok: true, skipped: true, reason: unchecked }];
  const datadir = mkdtempSync(join(tmpdir(), 'xone-blocktest-'));
  let store: ChainStore | undefined;
  try {
    store = ChainStore.open({ datadir, batch: 128 }, { migrations: STATE_MIGRATIONS });
    const reason = await runInStore(store, test);
    return [reason === undefined ? { name, ok: true } : { name, ok: false, reason }];
  } catch (err) {
    return [{ name, ok: false, reason: err instanceof Error ? err.message : String(err) }];
  } finally {
    store?.close();
    rmSync(datadir, { recursive: true, force: true });
  }
}

async function runInStore(store: ChainStore, test: BlockTestJson): Promise<string | undefined> {
  const genesis = genesisFromBlockchainTest(test);
  const importer = BlockImporter.open(store, { header: genesis.genesisHeader, alloc: genesis.alloc }, { config: genesis.config });
  const forkChoice = fixtureForkChoice();
  forkChoice.observe(importer.headInfo.hash, importer.headInfo.header.parentHash);
  const chain = new ChainImporter(importer, forkChoice);
  for (const [i, b] of test.blocks.entries()) {
    let error: Error | undefined;
    try {
      const block = decodeBlockRlp(vBytes(b.rlp));
      await chain.insert(block);
      forkChoice.observe(headerHash(block.header), block.header.parentHash);
    } catch (err) {
      error = err as Error;
    }
    if (b.expectException !== undefined && error === undefined)
      return `block ${i}: expected exception ${b.expectException}, block was accepted`;
    if (b.expectException === undefined && error !== undefined) return `block ${i}: ${error.message}`;
  }
  const head = importer.headInfo;
  if (!equalBytes(head.hash, vBytes(test.lastblockhash)))
    return `lastblockhash: expected ${test.lastblockhash}, got ${bytesToHex(head.hash)}`;
  if (test.postStateHash !== undefined) {
    if (!equalBytes(head.header.stateRoot, vBytes(test.postStateHash)))
      return `postStateHash: expected ${test.postStateHash}, got ${bytesToHex(head.header.stateRoot)}`;
  }
  if (test.postState !== undefined) {
    const expected = applyAlloc(new MemoryState(), allocOf(test.postState));
    if (!equalBytes(expected, head.header.stateRoot))
      return `postState root: expected ${bytesToHex(expected)}, got ${bytesToHex(head.header.stateRoot)}; ${diffState(importer, test.postState)}`;
  }
  return undefined;
}

/** The first accounts whose stored values differ from `post` (for a readable failure). */
function diffState(importer: BlockImporter, post: Record<string, VectorAccount>): string {
  const out: string[] = [];
  for (const [addr, want] of Object.entries(post)) {
    const got = importer.state.getAccount(vAddress(addr));
    if (got === undefined) out.push(`${addr} missing`);
    else if (got.balance !== vBig(want.balance)) out.push(`${addr}.balance expected ${vBig(want.balance)} got ${got.balance}`);
    else if (got.nonce !== vBig(want.nonce)) out.push(`${addr}.nonce expected ${vBig(want.nonce)} got ${got.nonce}`);
    if (out.length >= 3) break;
  }
  return out.length ? out.join('; ') : 'accounts match on balance/nonce (storage, code or an extra account differ)';
}
