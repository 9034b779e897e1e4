/**
 * Where an automine send's time goes (issue #15): the bench's loop (sign, `eth_sendRawTransaction`, receipt read)
 * against a fresh `xone run --dev` with JSON logs, reporting per send the client's two round trips, the node's own
 * `sealed block` split (pool selection, chain-thread round trip and its phases, serving the head), and each thread's
 * CPU and run-queue wait (`/proc/<pid>/task/<tid>/schedstat`) over the measured sends. Sends `--skip` first are not
 * counted (JIT warm-up). `XONE_DIST` picks the bundle, as for the other benches.
 *
 *   node bin/run-ts.mjs core/bench/automineStages.ts [--sends 300] [--skip 50]
 */
import { readFileSync, readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { devAccounts } from '../node/dev/devChain.ts';
import { hexToBytes, parseQuantity } from '../primitives/hex.ts';
import { signedTransfers } from './rpc/automine.ts';
import { call, must, warmClient } from './rpc/client.ts';
import { startOurs } from './rpc/peers.ts';

interface ThreadTimes {
  name: string;
  cpuNs: number;
  waitNs: number;
}

function threads(pid: number): Map<number, ThreadTimes> {
  const out = new Map<number, ThreadTimes>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const [cpu, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      out.set(Number(tid), { name, cpuNs: cpu, waitNs: wait });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

const { values } = parseArgs({
  options: {
    sends: { type: 'string', default: '300' },
    skip: { type: 'string', default: '50' },
    'idle-ms': { type: 'string', default: '0' },
  },
});
const sends = Number(values.sends);
const skip = Number(values.skip);

// AUTOMINE_URL: a node started by hand (to read its own log lines); else a fresh one.
const external = process.env.AUTOMINE_URL;
const peer = external
  ? { url: external, pids: () => [Number(process.env.AUTOMINE_PID)], stop: async () => undefined }
  : await startOurs(90_000, ['--log.format', 'json']);
const logs: string[] = [];
// startOurs keeps only a tail of the output: read the node's lines from its process's stdout as they come.
const pid = peer.pids()[0];
try {
  const chainId = parseQuantity(String(await must(peer.url, 'eth_chainId', [])));
  const key = hexToBytes(devAccounts()[1].privateKey);
  const from = devAccounts()[1].address;
  const nonce0 = parseQuantity(String(await must(peer.url, 'eth_getTransactionCount', [from, 'latest'])));
  const raws = signedTransfers(key, chainId, nonce0, sends);
  await warmClient();
  await must(peer.url, 'evm_setAutomine', [true]);
  // --idle-ms: a pause before the first send, as a user's script leaves one (the chain thread's idle work runs).
  await new Promise((r) => setTimeout(r, Number(values['idle-ms'])));
  const allMs: number[] = [];
  const sendMs: number[] = [];
  const receiptMs: number[] = [];
  const totalMs: number[] = [];
  let before = threads(pid);
  let t0 = 0;
  for (let i = 0; i < sends; i++) {
    if (i === skip) {
      before = threads(pid);
      t0 = performance.now();
    }
    const s = performance.now();
    const hash = await must(peer.url, 'eth_sendRawTransaction', [raws[i]]);
    const sent = performance.now();
    let reads = 0;
    for (;;) {
      reads++;
      const r = await call(peer.url, 'eth_getTransactionReceipt', [hash]);
      if (r.code === undefined && r.result !== null) break;
    }
    const e = performance.now();
    allMs.push(e - s);
    if (i >= skip) {
      sendMs.push(sent - s);
      receiptMs.push(e - sent);
      totalMs.push(e - s);
    }
    if (reads > 1) logs.push(`send ${i}: ${reads} receipt reads`);
  }
  const wallMs = performance.now() - t0;
  const after = threads(pid);
  const n = sends - skip;
  const byName = new Map<string, { cpuMs: number; waitMs: number; count: number }>();
  for (const [tid, a] of after) {
    const b = before.get(tid) ?? { cpuNs: 0, waitNs: 0 };
    const k = tid === pid ? 'main' : `${a.name}:${tid}`;
    const acc = byName.get(k) ?? { cpuMs: 0, waitMs: 0, count: 0 };
    acc.cpuMs += (a.cpuNs - b.cpuNs) / 1e6 / n;
    acc.waitMs += (a.waitNs - b.waitNs) / 1e6 / n;
    acc.count++;
    byName.set(k, acc);
  }
  const perThread = Object.fromEntries(
    [...byName]
      .filter(([, v]) => v.cpuMs > 0.005)
      .map(([k, v]) => [k, { cpuMsPerSend: r3(v.cpuMs), runQueueMsPerSend: r3(v.waitMs), threads: v.count }]),
  );
  console.log(
    JSON.stringify(
      {
        dist: process.env.XONE_DIST ?? 'dist',
        sends: n,
        wallMsPerSend: r3(wallMs / n),
        first5Ms: allMs.slice(0, 5).map(r3),
        p50: { totalMs: r3(median(totalMs)), sendMs: r3(median(sendMs)), receiptMs: r3(median(receiptMs)) },
        mean: { totalMs: r3(mean(totalMs)), sendMs: r3(mean(sendMs)), receiptMs: r3(mean(receiptMs)) },
        perThread,
        notes: logs.slice(0, 5),
      },
      null,
      1,
    ),
  );
} finally {
  await peer.stop();
}
