/** Minimal JSON-RPC over HTTP for the RPC benchmark: plain fetch, so both peers pay the same client cost. */
import { createServer } from 'node:http';

/** One call's outcome: wall time, and the JSON-RPC error code when the call failed. */
export interface CallResult {
  ms: number;
  result?: unknown;
  code?: number;
}

/** Times one JSON-RPC call (request sent to body parsed). Transport failures count as code -1. */
export async function call(url: string, method: string, params: unknown[]): Promise<CallResult> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { code: number } };
    const ms = performance.now() - t0;
    return body.error ? { ms, code: body.error.code } : { ms, result: body.result };
  } catch {
    return { ms: performance.now() - t0, code: -1 };
  }
}

/**
 * Runs `calls` requests through `call` against a throwaway JSON-RPC answerer on 127.0.0.1, so a timed phase does not
 * pay for this process's cold fetch: a fresh client's first sends against anvil took 14-59 ms where anvil answers in
 * 3 ms (its CPU per send unchanged), and the peer measured first would carry that alone. Neither peer sees a request.
 */
export async function warmClient(calls = 400): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"jsonrpc":"2.0","id":1,"result":"0x1"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  try {
    for (let i = 0; i < calls; i++) await call(url, 'eth_chainId', []);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

/**
 * `call`, asked again while the node sheds expensive methods (-32005 from the watchdog on a loaded host); the time is
 * that of the answered call, and `shed` counts the refusals.
 */
export async function callPatiently(url: string, method: string, params: unknown[], shed = { count: 0 }): Promise<CallResult> {
  let r = await call(url, method, params);
  for (let i = 0; i < 100 && r.code === -32005; i++) {
    shed.count++;
    await new Promise((res) => setTimeout(res, 50));
    r = await call(url, method, params);
  }
  return r;
}

/** Like `call` but throws on an error, for setup steps that must work. */
export async function must(url: string, method: string, params: unknown[]): Promise<unknown> {
  const r = await call(url, method, params);
  if (r.code !== undefined) throw new Error(`${method} on ${url} failed with code ${r.code}`);
  return r.result;
}

/** Sends one JSON-RPC batch; returns the per-element error codes (undefined = success) in request order. */
export async function batch(url: string, method: string, paramsList: unknown[][]): Promise<(number | undefined)[]> {
  const body = JSON.stringify(paramsList.map((params, id) => ({ jsonrpc: '2.0', id, method, params })));
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const parsed = (await res.json()) as { id: number; error?: { code: number } }[] | { error?: { code: number } };
  if (!Array.isArray(parsed)) return paramsList.map(() => parsed.error?.code ?? -1);
  const codes: (number | undefined)[] = paramsList.map(() => -1);
  for (const r of parsed) codes[r.id] = r.error?.code;
  return codes;
}

/** Nearest-rank percentile of an ascending-sorted array (NaN when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((sorted.length * p) / 100) - 1))];
}

/** Rounds to 3 decimals (ms figures well under 1 ms stay readable). */
export const round3 = (x: number): number => Math.round(x * 1000) / 1000;
