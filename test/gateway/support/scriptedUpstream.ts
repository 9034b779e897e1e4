import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a script returns for one call: a result, a JSON-RPC error, or a whole-HTTP answer. */
export type ScriptAnswer = { result: unknown } | { error: { code: number; message: string } } | { http: number };

/** A call handler; may be async (to delay). */
export type Script = (method: string, params: unknown[]) => ScriptAnswer | Promise<ScriptAnswer>;

/** A scripted JSON-RPC upstream served over real HTTP on 127.0.0.1, counting calls per method. */
export interface ScriptedUpstream {
  url: string;
  calls: Map<string, number>;
  /** Every call received, in order. */
  log: { method: string; params: unknown[] }[];
  script: Script;
  stop(): Promise<void>;
}

/** Starts the server; `script` can be swapped at any time (to inject a reorg or an error). */
export async function startScriptedUpstream(script: Script): Promise<ScriptedUpstream> {
  const calls = new Map<string, number>();
  const up: ScriptedUpstream = { url: '', calls, log: [], script, stop: async () => undefined };
  const answer = async (req: { id: unknown; method: string; params?: unknown[] }) => {
    calls.set(req.method, (calls.get(req.method) ?? 0) + 1);
    up.log.push({ method: req.method, params: req.params ?? [] });
    const a = await up.script(req.method, req.params ?? []);
    return { a, id: req.id };
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // Not JSON-RPC (e.g. the gateway's newHeads feed trying a WebSocket upgrade): this upstream is HTTP only.
        res.writeHead(400).end();
        return;
      }
      const list = (Array.isArray(body) ? body : [body]) as { id: unknown; method: string; params?: unknown[] }[];
      const out = await Promise.all(list.map(answer));
      const http = out.find((o) => 'http' in o.a);
      if (http && 'http' in http.a) {
        res.writeHead(http.a.http).end('{}');
        return;
      }
      const responses = out.map(({ a, id }) => ({ jsonrpc: '2.0', id, ...(a as object) }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(body) ? responses : responses[0]));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  up.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  up.stop = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return up;
}

/** A tiny chain for scripts: blocks by number with hashes that a reorg can replace. */
export class ScriptChain {
  hashes: string[] = [];
  constructor(
    length: number,
    public finalizedDepth = 2,
  ) {
    for (let i = 0; i < length; i++) this.hashes.push(ScriptChain.hash(i, 'a'));
  }
  static hash(n: number, fork: string): string {
    return `0x${fork.repeat(8)}${n.toString(16).padStart(56, '0')}`;
  }
  get head(): number {
    return this.hashes.length - 1;
  }
  block(n: number): { number: string; hash: string; parentHash: string; transactions: never[] } | null {
    const hash = this.hashes[n];
    if (hash === undefined) return null;
    return {
      number: `0x${n.toString(16)}`,
      hash,
      parentHash: n === 0 ? `0x${'0'.repeat(64)}` : (this.hashes[n - 1] as string),
      transactions: [],
    };
  }
  /** Replaces blocks from `from` upward with a new fork of the same length. */
  reorg(from: number, fork: string): void {
    for (let n = from; n < this.hashes.length; n++) this.hashes[n] = ScriptChain.hash(n, fork);
  }
  /** Answers the block-shaped methods; undefined for others. */
  answer(method: string, params: unknown[]): ScriptAnswer | undefined {
    if (method === 'eth_blockNumber') return { result: `0x${this.head.toString(16)}` };
    if (method === 'eth_syncing') return { result: false };
    if (method === 'eth_chainId') return { result: '0x7e4' };
    if (method === 'eth_getBlockByNumber') {
      const tag = params[0];
      const n =
        tag === 'latest' || tag === 'safe'
          ? this.head
          : tag === 'finalized'
            ? Math.max(0, this.head - this.finalizedDepth)
            : parseInt(String(tag), 16);
      return { result: this.block(n) };
    }
    return undefined;
  }
}
