/**
 * Crash-test writer for reorgs: inserts a scripted sequence of blocks (a chain with side branches that win, see
 * reorg.test.ts) through the real import pipeline with fork choice, on the fixture chain of core/bench/reorg. Prints
 * `step <i>` before inserting block i, `done <i> <kind>` after, and `durable <i>` once everything up to it is durable
 * (every block in producer mode; every `batch`-th block and every reorg in follower mode). Blocks already stored are
 * skipped, so a restarted writer resumes where the last durable commit left it. Waits for one stdin line first (the
 * parent starts writers ahead of need).
 *
 *   node reorgWriter.mjs --datadir D --script FILE [--batch B]
 */
import { readFileSync, writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fixtureTree } from '../../core/bench/reorg/fixture.ts';
import { totalDifficultyForkChoice } from '../../core/chain/forkChoice.ts';
import { BlockImporter } from '../../core/exec/import/blockImporter.ts';
import { ChainImporter } from '../../core/exec/import/chainImporter.ts';
import { hexToBytes } from '../../core/primitives/hex.ts';
import { ChainStore } from '../../core/store/index.ts';

const { values } = parseArgs({
  options: { datadir: { type: 'string' }, script: { type: 'string' }, batch: { type: 'string', default: '0' } },
});
const batch = Number(values.batch);
const script = JSON.parse(readFileSync(values.script as string, 'utf8')) as { rlp: string }[];
const tree = fixtureTree();
writeSync(1, 'ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
process.stdin.pause();
const store = ChainStore.open({ datadir: values.datadir as string, batch, maxSegmentBytes: 65_536 });
const importer = BlockImporter.open(store, { header: tree.genesis.header, alloc: tree.alloc }, { config: tree.config });
const chain = new ChainImporter(
  importer,
  totalDifficultyForkChoice(() => 0.9),
);
let sinceSteady = 0;
for (const [i, step] of script.entries()) {
  writeSync(1, `step ${i}\n`);
  const r = await chain.insertRlp(hexToBytes(step.rlp));
  writeSync(1, `done ${i} ${r.kind}\n`);
  if (r.kind === 'known') continue;
  sinceSteady++;
  if (batch === 0 || r.kind === 'reorg' || sinceSteady >= batch) {
    store.steady();
    sinceSteady = 0;
    writeSync(1, `durable ${i}\n`);
  }
}
store.close();
writeSync(1, 'end\n');
