import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMeasureNodeProgram } from '../../../infra/measureNode/cli.ts';
import { measureNode } from '../../../infra/measureNode/measureNode.ts';
import { parseMethodSpec } from '../../../infra/measureNode/methods.ts';
import { startFaultServer, type FaultServer } from '../support/faultServer.ts';

const DOC = readFileSync('docs/measure-node.md', 'utf8');
/** Every identifier inside a code span of the doc (`{name, version}` documents both keys). */
const DOC_CODE_WORDS = new Set([...DOC.replace(/```[^]*?```/g, '').matchAll(/`([^`]+)`/g)].flatMap((m) => m[1].split(/[^A-Za-z0-9_]+/)));
let server: FaultServer;
let dir: string;
beforeAll(async () => {
  server = await startFaultServer({ script: { eth_gasPrice: ['ok', 'rpc-32005'] }, errorDelayMs: 1 });
  dir = await mkdtemp(join(tmpdir(), 'measure-node-docs-'));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** Every object key anywhere in a JSON value. */
function keysOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => keysOf(v, out));
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysOf(v, out);
    }
  }
  return out;
}

describe('docs/measure-node.md', () => {
  it('default: documents every CLI flag', () => {
    const program = buildMeasureNodeProgram(async () => {});
    const flags = program.options.map((o) => o.long).filter((f): f is string => f !== undefined && f !== '--version');
    expect(flags.length).toBeGreaterThan(10);
    expect(flags.filter((f) => !DOC.includes(`\`${f}`))).toEqual([]);
  });

  it('behavior: documents every field of a full report (process, datadir, log, failures)', async () => {
    const log = join(dir, 'node.log');
    await writeFile(log, '');
    const report = await measureNode({
      url: server.url,
      windowSec: 0,
      calls: 2,
      pauseMs: 0,
      timeoutMs: 1000,
      methods: [parseMethodSpec('eth_gasPrice')],
      headers: {},
      pid: process.pid,
      datadir: dir,
      logFile: log,
      // A zero window never sleeps: the slow-block line is written when the window starts.
      onProgress: (line) => {
        if (line.startsWith('window:'))
          writeFileSync(log, '{"msg":"Slow block","block":{"number":1,"gas_used":0,"tx_count":0},"timing":{"total_ms":1}}\n');
      },
    });
    expect(report.after.methods[0].failures[0].rpcCode).toBe(-32005);
    const undocumented = [...keysOf(report)].filter((k) => !DOC_CODE_WORDS.has(k));
    expect(undocumented).toEqual([]);
  });
});
