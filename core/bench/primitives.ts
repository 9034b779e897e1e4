/**
 * `npm run bench:primitives`: single-thread figures for the primitives (issue: Foundation). Prints one JSON document
 * on stdout and a one-line summary on stderr. Options: `--quick` (shorter runs, for a smoke check).
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { benchBlock } from './primitives/block.ts';
import { benchCrypto } from './primitives/crypto.ts';

const quick = process.argv.includes('--quick');
const startedLoad = loadavg().map((x) => Number(x.toFixed(2)));
const crypto = await benchCrypto({ minMs: quick ? 200 : 1500 });
const block = await benchBlock({ runs: quick ? 8 : 40 });

const report = {
  bench: 'primitives',
  date: new Date().toISOString(),
  host: {
    cores: availableParallelism(),
    cpu: cpus()[0]?.model,
    node: process.version,
    loadavgStart: startedLoad,
    loadavgEnd: loadavg().map((x) => Number(x.toFixed(2))),
  },
  crypto,
  block,
};
process.stdout.write(JSON.stringify(report, null, 2) + '\n');

type Rate = { opsPerSec: number };
const rec = crypto.recoveriesPerSec as Record<string, Rate | string | boolean>;
const nativeRate = (rec.native as Rate | undefined)?.opsPerSec ?? (rec.elliptic as Rate | undefined)?.opsPerSec;
const kk = crypto.keccak as Record<string, { opsPerSec: Record<string, number> }>;
const b = block as { decodeAndHash: { p50Ms: number }; receiptsRoot: { p50Ms: number } };
process.stderr.write(
  `primitives: recover native ${nativeRate}/s noble ${(rec.noble as Rate).opsPerSec}/s; keccak 32B ${kk['32B'].opsPerSec['hash-wasm']}/s 532B ${kk['532B'].opsPerSec['hash-wasm']}/s; ` +
    `1428-tx block decode+hash p50 ${b.decodeAndHash.p50Ms} ms; receipts root p50 ${b.receiptsRoot.p50Ms} ms (load ${startedLoad.join(' ')})\n`,
);
