/**
 * Bounded fuzz of the RPC server with malformed input: >= 10,000 requests over HTTP and WebSocket (invalid JSON,
 * wrong types, huge numbers, deep nesting, oversized bodies and batches, bad hex, unknown methods, invalid envelopes,
 * half-closed sockets, garbage frames) to the real node. Every answer must be a JSON-RPC error with the expected code,
 * the server must keep answering, and memory must stay bounded. Seeded: a failure names the seed and the case; the run
 * is a fixed count of cases, so a loaded host runs the same ones (slower), never fewer.
 */
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Case, generator, prng } from './support/malformed.ts';
import { type RealNode, startRealNode } from './support/realNode.ts';

const LIMITS = { maxBodyBytes: 64 * 1024, batchLimit: 50, maxDepth: 64 };
const SEED = 0x5eed;
const TARGET = 10_000;

/** A full GC so heap figures are retained memory, not garbage waiting for collection. */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

let h: RealNode;
beforeAll(async () => {
  h = await startRealNode({ rpc: LIMITS });
  for (let i = 0; i < 3; i++) await h.mine();
});
afterAll(() => h?.close());

type Answer = { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };

/** Checks one answer text against a case; returns a problem description or null. */
function check(c: Case, status: number, text: string): string | null {
  if (status !== c.status) return `status ${status}, want ${c.status}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `answer is not JSON: ${text.slice(0, 80)}`;
  }
  const answers = (c.batch ? parsed : [parsed]) as Answer[];
  if (!Array.isArray(answers)) return 'batch answer is not an array';
  if (answers.length !== c.codes.length) return `${answers.length} answers, want ${c.codes.length}`;
  for (let i = 0; i < answers.length; i++) {
    const a = answers[i];
    if (a.jsonrpc !== '2.0' || !('id' in a) || a.result !== undefined) return `not a JSON-RPC error: ${JSON.stringify(a).slice(0, 120)}`;
    if (typeof a.error?.message !== 'string' || a.error.code !== c.codes[i])
      return `code ${String(a.error?.code)}, want ${c.codes[i]}: ${String(a.error?.message).slice(0, 100)}`;
  }
  return null;
}

/** A socket that sends part of a request and half-closes; the server must neither crash nor hang on it. */
function halfClosed(port: number, r: () => number): Promise<void> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}';
    const variants = [
      'POST / HTTP/1.1\r\nHost: x\r\n',
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 50}\r\n\r\n${body}`,
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n${body.slice(0, 10)}`,
      'GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: abc\r\nSec-WebSocket-Version: 13\r\n\r\n',
    ];
    s.on('error', () => resolve());
    s.on('close', () => resolve());
    s.setTimeout(500, () => s.destroy());
    s.on('connect', () => {
      s.end(variants[Math.floor(r() * variants.length)]);
    });
    s.resume();
  });
}

describe('fuzz', () => {
  test('behavior: >= 10,000 malformed requests all get the right JSON-RPC error; server stays up; memory bounded', async () => {
    const port = Number(new URL(h.url).port);
    const next = generator(SEED, LIMITS);
    const r = prng(SEED + 1);
    const failures: string[] = [];
    const kinds = new Map<string, number>();
    let sent = 0;
    const started = Date.now();

    // Warm up, then measure the heap around the run.
    for (let i = 0; i < 200; i++) await h.call('eth_blockNumber');
    collect();
    const heapBefore = process.memoryUsage().heapUsed;

    // WebSocket: raw garbage frames (each answered with a parse error) through a few connections.
    const open = () =>
      new Promise<WebSocket>((res, rej) => {
        const ws = new WebSocket(h.wsUrl);
        ws.once('open', () => res(ws)).once('error', rej);
      });
    const sockets = await Promise.all(Array.from({ length: 4 }, open));
    let wsAnswers = 0;
    let wsBad = 0;
    for (const ws of sockets)
      ws.on('message', (d) => {
        wsAnswers++;
        const a = JSON.parse(d.toString()) as Answer;
        if (a.error?.code !== -32700 || a.id !== null) wsBad++;
      });
    const WS_FRAMES = 1000;
    for (let i = 0; i < WS_FRAMES; i++) {
      const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(r() * 64) }, () => Math.floor(r() * 256)));
      bytes[0] = 0x7b; // '{' that is never closed: always invalid JSON
      for (let j = 1; j < bytes.length; j++) if (bytes[j] === 0x7d) bytes[j] = 0x20;
      sockets[i % sockets.length].send(r() > 0.5 ? bytes : bytes.toString('latin1'));
    }
    sent += WS_FRAMES;
    kinds.set('ws-garbage', WS_FRAMES);

    const count = (kind: string) => kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    const record = (c: Case, problem: string | null, via: string) => {
      if (problem && failures.length < 20) failures.push(`${via} ${c.kind}: ${problem} | body ${c.body.slice(0, 120)}`);
    };

    // HTTP: generated cases at 16 in flight (status codes checked too).
    let httpLeft = 1000;
    const httpWorker = async () => {
      while (httpLeft-- > 0) {
        const c = next();
        count(c.kind);
        sent++;
        const res = await fetch(h.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: c.body });
        record(c, check(c, res.status, await res.text()), 'http');
      }
    };
    // WebSocket: generated cases pipelined in windows of 100 per connection (oversized bodies excluded: they close the
    // socket). Answers of one window may arrive in any order, so each window compares the multiset of answer shapes.
    let wsLeft = 8000;
    const shape = (c: Case) => (c.batch ? 'B' : '') + c.codes.join(',');
    const answerShape = (text: string) => {
      const a = JSON.parse(text) as Answer | Answer[];
      const list = Array.isArray(a) ? a : [a];
      const ok = list.every((x) => x.jsonrpc === '2.0' && 'id' in x && x.result === undefined && typeof x.error?.message === 'string');
      return (ok ? '' : 'NOT-AN-ERROR ') + (Array.isArray(a) ? 'B' : '') + list.map((x) => String(x.error?.code)).join(',');
    };
    const wsWorker = async () => {
      const ws = await open();
      let got: string[] = [];
      let want = 0;
      let wake: (() => void) | undefined;
      ws.on('message', (d) => {
        got.push(answerShape(d.toString()));
        if (got.length >= want) wake?.();
      });
      while (wsLeft > 0) {
        const window: Case[] = [];
        while (window.length < 100 && wsLeft > 0) {
          const c = next();
          if (c.status !== 200) continue;
          wsLeft--;
          window.push(c);
          count(c.kind);
        }
        got = [];
        want = window.length;
        const done = new Promise<void>((res) => (wake = res));
        for (const c of window) ws.send(c.body);
        // Answers missing after a minute are a failure (compared below), not a slow host.
        await Promise.race([done, new Promise((res) => setTimeout(res, 60_000))]);
        sent += window.length;
        const expected = window.map(shape).sort();
        const actual = [...got].sort();
        if (JSON.stringify(expected) !== JSON.stringify(actual) && failures.length < 20) {
          failures.push(`ws window: want ${JSON.stringify(expected)} got ${JSON.stringify(actual)}`);
        }
      }
      ws.close();
    };
    // Half-closed sockets, all at once.
    const half = Array.from({ length: 50 }, () => halfClosed(port, r).then(() => count('half-closed')));
    await Promise.all([...Array.from({ length: 16 }, httpWorker), ...Array.from({ length: 4 }, wsWorker), ...half]);
    sent += 50;

    const deadline = Date.now() + 60_000;
    while (wsAnswers < WS_FRAMES && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
    for (const ws of sockets) ws.close();

    expect(failures).toEqual([]);
    expect(wsAnswers).toBe(WS_FRAMES);
    expect(wsBad).toBe(0);
    expect(sent).toBeGreaterThanOrEqual(TARGET);
    expect([...kinds.keys()].length).toBeGreaterThanOrEqual(18);
    // Still up and answering correctly.
    expect((await h.call('eth_blockNumber')).result).toBe('0x3');
    // Bounded state: nothing left behind by the garbage.
    expect(h.node.rpc.services.filters.size).toBe(0);
    expect(h.node.rpc.services.subscriptions.size).toBe(0);
    collect();
    const heapGrowthMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
    expect(heapGrowthMb).toBeLessThan(16);
    console.log(
      JSON.stringify({
        fuzz: { sent, ms: Date.now() - started, heapGrowthMb: Math.round(heapGrowthMb), kinds: Object.fromEntries(kinds) },
      }),
    );
  }, 150_000);
});
