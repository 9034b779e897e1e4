/**
 * Crash-test writer: a child process that writes deterministic synthetic blocks to a datadir as fast as it can and
 * prints `durable <number>` (synchronously, to fd 1) each time a head became durable. The parent SIGKILLs it at
 * random moments. Producer mode commits every block; follower mode calls steady() at every `step`-th block, so
 * durable heads are always `number % step === step - 1`. `--commit-survives process-exit` writes as the dev chain
 * does (decisions 0036, 0048: nothing waits for the disk) and checkpoints the WAL every 4th block, as the dev node's
 * pin settling asks it to, so kills also land in and after checkpoints that synced nothing.
 *
 * The process loads everything first, prints `ready`, and waits for one line on stdin before it opens the datadir:
 * the parent starts the next writer while the current one still runs, so process start-up stays off the kill loop.
 *
 *   node writer.mjs --datadir D --seed S --step N [--batch B] [--max-blocks M] [--commit-survives process-exit]
 */
import { writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { syntheticBlock, ZERO_HASH } from '../../core/bench/store/syntheticBlocks.ts';
import { ChainStore } from '../../core/store/index.ts';
import type { CommitSurvives } from '../../core/store/options.ts';
import { CRASH_SHAPE } from './shape.ts';

const { values } = parseArgs({
  options: {
    datadir: { type: 'string' },
    seed: { type: 'string', default: '1' },
    step: { type: 'string', default: '1' },
    batch: { type: 'string', default: '0' },
    'max-blocks': { type: 'string', default: '1000000' },
    'max-segment-bytes': { type: 'string', default: '65536' },
    'commit-survives': { type: 'string', default: 'power-loss' },
  },
});
writeSync(1, 'ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
process.stdin.pause();
const seed = Number(values.seed);
const step = Number(values.step);
const store = ChainStore.open({
  datadir: values.datadir as string,
  batch: Number(values.batch),
  maxSegmentBytes: Number(values['max-segment-bytes']),
  commitSurvives: values['commit-survives'] as CommitSurvives,
});
const checkpointEvery = values['commit-survives'] === 'process-exit' ? 4 : 0;
const head = store.getHead();
writeSync(1, `open ${head?.number ?? -1}\n`);
let parent = head?.hash ?? ZERO_HASH;
const last = (head?.number ?? -1) + Number(values['max-blocks']);
for (let n = (head?.number ?? -1) + 1; n <= last; n++) {
  const block = syntheticBlock(seed, n, parent, CRASH_SHAPE);
  store.putBlock(block);
  parent = block.hash;
  if (n % step === step - 1) {
    store.steady();
    writeSync(1, `durable ${n}\n`);
  }
  if (checkpointEvery > 0 && n % checkpointEvery === 0) store.checkpoint();
}
store.close();
