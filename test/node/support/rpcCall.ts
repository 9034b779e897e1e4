/** Tiny JSON-RPC and /metrics clients for node end-to-end tests. */

export interface RpcReply {
  result?: unknown;
  error?: { code: number; message: string };
}

/** One JSON-RPC call over HTTP POST. */
export async function rpc(url: string, method: string, params: unknown[] = []): Promise<RpcReply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as RpcReply;
}

/** Scrapes `<url>/metrics` and returns the unlabelled sample values by series name. */
export async function scrape(url: string): Promise<Map<string, number>> {
  const res = await fetch(`${url}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  const out = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    const m = /^([a-z_:][a-z0-9_:]*(?:\{[^}]*\})?) (\S+)$/i.exec(line);
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}
