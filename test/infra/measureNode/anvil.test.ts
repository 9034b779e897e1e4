import { appendFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureNode } from '../../../infra/measureNode/measureNode.ts';
import { presetMethods } from '../../../infra/measureNode/methods.ts';
import { findPidByPort } from '../../../infra/measureNode/proc/findPid.ts';
import { startAnvil, type RunningAnvil } from '../support/anvil.ts';

let anvil: RunningAnvil;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'measure-node-anvil-'));
  // anvil dumps its state into the datadir every second, so the datadir grows while blocks are mined.
  anvil = await startAnvil(['--block-time', '1', '--dump-state', join(dir, 'state.json'), '--state-interval', '1']);
});
afterAll(async () => {
  await anvil?.stop();
  await rm(dir, { recursive: true, force: true });
});

const slowLine = (n: number, total: number) =>
  `{"level":"warn","msg":"Slow block","block":{"number":${n},"hash":"0x${'ab'.repeat(32)}","gas_used":21000,"tx_count":1},` +
  `"timing":{"execution_ms":${total / 2},"state_read_ms":1,"state_hash_ms":2,"commit_ms":3,"total_ms":${total}},"throughput":{"mgas_per_sec":4.2},"recovery_ms":0.5}\n`;

describe('measure-node against a real anvil', () => {
  it('default: finds the process from the port, records every preset method, memory, I/O, datadir and the window log', async () => {
    expect(await findPidByPort(anvil.port)).toBe(anvil.pid);
    const log = join(dir, 'node.log');
    // Lines before the window must not count.
    await writeFile(log, slowLine(1, 999) + 'INFO something else\n');
    const report = await measureNode({
      url: anvil.url,
      windowSec: 2,
      calls: 5,
      pauseMs: 0,
      timeoutMs: 5000,
      methods: presetMethods(),
      headers: {},
      findPidFromPort: anvil.port,
      datadir: dir,
      logFile: log,
      // The "node" writes slow-block lines during the window (anvil itself has no such log). On the window's progress
      // line, not inside the sleep: on a loaded host the before snapshot can outlast the 2 s window, and the sleep is
      // then skipped.
      onProgress: (line) => {
        if (line.startsWith('window:'))
          appendFileSync(log, slowLine(5, 10) + slowLine(6, 20) + slowLine(7, 30) + '{"msg":"Slow block", broken\n');
      },
    });
    expect(report.processSource).toMatchObject({ kind: 'port' });
    expect(report.window.seconds).toBeGreaterThanOrEqual(2);
    for (const snap of [report.before, report.after]) {
      expect(snap.node.clientVersion).toMatch(/^anvil\//);
      expect(snap.node.chainId).toBe(31337);
      expect(snap.host.cores).toBeGreaterThan(0);
      expect(snap.methods.map((m) => m.label)).toEqual(presetMethods().map((m) => m.label));
      for (const m of snap.methods) {
        expect(m.failed, `${m.label}: ${JSON.stringify(m.failures)}`).toBe(0);
        expect(m.ok).toBe(5);
        expect(m.p50Ms as number).toBeGreaterThan(0);
        expect(m.p95Ms as number).toBeGreaterThanOrEqual(m.p50Ms as number);
      }
      expect(snap.process?.pid).toBe(anvil.pid);
      const mem = snap.process?.memory;
      expect(mem?.rssBytes).toBeGreaterThan(1_000_000);
      expect((mem?.rssAnonBytes ?? 0) + (mem?.rssFileBytes ?? 0) + (mem?.rssShmemBytes ?? 0)).toBe(mem?.rssBytes);
      expect(mem?.vmHwmBytes).toBeGreaterThanOrEqual(mem?.rssBytes ?? 0);
      expect(snap.datadir?.bytes).toBeGreaterThan(0);
      expect(snap.datadir?.filesystem?.fstype).toMatch(/^\w+/);
    }
    expect(report.after.node.head as number).toBeGreaterThan(report.before.node.head as number);
    expect(report.window.blocks).toBe((report.after.node.head as number) - (report.before.node.head as number));
    // The calls of the before snapshot went through anvil's socket during the window.
    expect(report.window.io?.wchar).toBeGreaterThan(0);
    const growth = report.window.datadir?.growthBytes as number;
    expect(growth).toBe((report.after.datadir?.bytes as number) - (report.before.datadir?.bytes as number));
    expect(report.window.datadir?.bytesPerBlock).toBe(Math.round(growth / (report.window.blocks as number)));
    const slow = report.window.slowBlocks;
    expect(slow).toMatchObject({ lines: 3, unparsed: 1, firstBlock: 5, lastBlock: 7, txCount: 3, gasUsed: 63000, truncated: false });
    expect(slow?.timings.find((t) => t.field === 'total_ms')).toEqual({ field: 'total_ms', count: 3, p50: 20, p95: 30, max: 30 });
    expect(slow?.timings.find((t) => t.field === 'recovery_ms')?.p50).toBe(0.5);
    expect(slow?.timings.find((t) => t.field === 'mgas_per_sec')?.p95).toBe(4.2);
  });
});
