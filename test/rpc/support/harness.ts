/** Starts a real RPC server on 127.0.0.1:0 over a freshly built in-memory chain. */
import { createRpcServer, type RpcServer } from '../../../core/rpc/server.ts';
import { type RpcOptions } from '../../../core/rpc/options.ts';
import { type RpcDeps } from '../../../core/rpc/interface.ts';
import { ADDRESSES, ChainBuilder, EMITTER, REVERTER } from './chainBuilder.ts';
import { MemoryNode } from './memoryNode.ts';

export interface Harness {
  server: RpcServer;
  node: MemoryNode;
  url: string;
  wsUrl: string;
  /** POSTs a body (object → JSON) and returns status, headers and parsed JSON (or null for an empty body). */
  post(body: unknown, init?: RequestInit): Promise<{ status: number; headers: Headers; json: unknown; text: string }>;
  /** One call; returns the whole response object. */
  call(method: string, params?: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }>;
  close(): Promise<void>;
}

/** Genesis + 3 blocks: legacy and 1559 transfers, an emitting call, a reverting call (status 0). */
export async function buildChain(): Promise<ChainBuilder> {
  const b = new ChainBuilder();
  await b.addBlock([]);
  await b.addBlock([
    { from: 0, to: ADDRESSES[1], value: 1000n, type: 0 },
    { from: 1, to: ADDRESSES[2], value: 5n, type: 2 },
  ]);
  await b.addBlock([
    { from: 0, to: EMITTER, type: 2 },
    { from: 2, to: REVERTER, type: 2 },
  ]);
  await b.addBlock([{ from: 1, to: EMITTER, type: 0 }]);
  return b;
}

export async function startHarness(
  options: Partial<RpcOptions> = {},
  depsOverride: Partial<RpcDeps> = {},
  chain?: ChainBuilder,
): Promise<Harness> {
  const node = new MemoryNode(chain ?? (await buildChain()));
  const server = createRpcServer(
    { port: 0, ...options },
    {
      chain: node,
      state: node,
      exec: node,
      txpool: node,
      dev: node,
      events: node,
      health: node,
      now: () => Number(node.head().timestamp) * 1000 + 5000,
      ...depsOverride,
    },
  );
  const { port } = await server.start();
  const url = `http://127.0.0.1:${port}/`;
  const post: Harness['post'] = async (body, init = {}) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...init,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: text === '' ? null : JSON.parse(text) };
  };
  let id = 0;
  return {
    server,
    node,
    url,
    wsUrl: `ws://127.0.0.1:${port}/`,
    post,
    async call(method, params = []) {
      const r = await post({ jsonrpc: '2.0', id: ++id, method, params });
      return r.json as { result?: unknown; error?: { code: number; message: string } };
    },
    close: () => server.close(),
  };
}
