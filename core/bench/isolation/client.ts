/**
 * The clients of `bench:rpc-isolation`: JSON-RPC POSTs over node:http from a chosen local address (127.0.0.x are all
 * loopback on Linux, so one host plays several clients by IP, which is what the execution pool's per-client share
 * sees), each answer classified (result, JSON-RPC error code, transport failure) and timed.
 */
import { Agent, request } from 'node:http';

export interface Answer {
  ms: number;
  /** 'ok', the JSON-RPC error code as text, `http <status>` without a JSON body, or 'transport'. */
  outcome: string;
  result?: unknown;
}

/** One keep-alive agent per local address: a client reuses its connections as a real one does. */
const agents = new Map<string, Agent>();
function agentFor(localAddress: string): Agent {
  let a = agents.get(localAddress);
  if (!a) {
    a = new Agent({ keepAlive: true, localAddress } as ConstructorParameters<typeof Agent>[0]);
    agents.set(localAddress, a);
  }
  return a;
}

export function closeAgents(): void {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}

/** POSTs `body` from `localAddress` to `url`; never throws. `signal` aborts the request (the client hangs up). */
export function post(url: string, body: unknown, localAddress: string, signal?: AbortSignal): Promise<Answer> {
  const data = JSON.stringify(body);
  const u = new URL(url);
  const t0 = performance.now();
  return new Promise((resolve) => {
    const done = (outcome: string, result?: unknown) =>
      resolve({ ms: performance.now() - t0, outcome, ...(result !== undefined ? { result } : {}) });
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
        agent: agentFor(localAddress),
        ...(signal ? { signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result?: unknown; error?: { code: number } };
            if (json.error) done(String(json.error.code));
            else done('ok', json.result);
          } catch {
            done(`http ${res.statusCode ?? 0}`);
          }
        });
        res.on('error', () => done('transport'));
      },
    );
    req.on('error', () => done('transport'));
    req.end(data);
  });
}

/** p50 / p99 / max (ms, 3 decimals) of a list of milliseconds; nearest rank. */
export function spread(ms: readonly number[]): { n: number; p50: number; p99: number; max: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? NaN;
  const r = (x: number): number => Math.round(x * 1000) / 1000;
  return { n: s.length, p50: r(at(0.5)), p99: r(at(0.99)), max: r(s[s.length - 1] ?? NaN) };
}

/** Counts of each outcome. */
export function tally(answers: readonly Answer[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) out[a.outcome] = (out[a.outcome] ?? 0) + 1;
  return out;
}
