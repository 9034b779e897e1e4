import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { CallFailure, TransportErrorClass } from './types.ts';

/** Outcome of one timed JSON-RPC call: a result with its latency, or a classified failure. */
export type CallOutcome = { ok: true; ms: number; result: unknown } | { ok: false; failure: Omit<CallFailure, 'index'> };

/** A JSON-RPC client over one keep-alive connection, so each call measures the node rather than TCP setup. */
export interface RpcCaller {
  call(method: string, params: unknown[]): Promise<CallOutcome>;
  close(): void;
}

/** Creates a caller for `url` sending `headers` (API keys) with every request. */
export function createRpcCaller(url: string, headers: Record<string, string>, timeoutMs: number): RpcCaller {
  const target = new URL(url);
  const lib = target.protocol === 'https:' ? https : http;
  const agent = new lib.Agent({ keepAlive: true, maxSockets: 1 });
  let nextId = 1;
  return {
    call: (method, params) => callOnce(lib, agent, target, headers, timeoutMs, { jsonrpc: '2.0', id: nextId++, method, params }),
    close: () => agent.destroy(),
  };
}

class CallTimeout extends Error {
  readonly code = 'ETIMEDOUT';
}

function callOnce(
  lib: typeof http | typeof https,
  agent: http.Agent,
  target: URL,
  headers: Record<string, string>,
  timeoutMs: number,
  payload: { jsonrpc: '2.0'; id: number; method: string; params: unknown[] },
): Promise<CallOutcome> {
  const body = JSON.stringify(payload);
  const started = performance.now();
  const elapsed = () => round3(performance.now() - started);
  return new Promise((resolve) => {
    const req = lib.request(target, {
      method: 'POST',
      agent,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    // One deadline for the whole call (connect, send, wait, read), not an idle timeout.
    const timer = setTimeout(() => req.destroy(new CallTimeout(`no complete response within ${timeoutMs} ms`)), timeoutMs);
    const finish = (outcome: CallOutcome) => {
      clearTimeout(timer);
      resolve(outcome);
    };
    req.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, failure: transportFailure(err, elapsed()) }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, failure: transportFailure(err, elapsed()) }));
      res.on('end', () => {
        const ms = elapsed();
        finish(interpretResponse(res.statusCode ?? 0, res.statusMessage ?? '', Buffer.concat(chunks).toString('utf8'), ms));
      });
    });
    req.end(body);
  });
}

/** Turns a completed HTTP response into a result or a failure; exported for unit tests. */
export function interpretResponse(status: number, statusText: string, text: string, ms: number): CallOutcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const rpcError = readRpcError(parsed);
  if (status !== 200) {
    const message = rpcError ? rpcError.message : statusText || `HTTP ${status}`;
    return {
      ok: false,
      failure: { ms, kind: 'http', reason: `http ${status}`, httpStatus: status, message, ...(rpcError ? { rpcCode: rpcError.code } : {}) },
    };
  }
  if (rpcError)
    return { ok: false, failure: { ms, kind: 'rpc', reason: `rpc ${rpcError.code}`, rpcCode: rpcError.code, message: rpcError.message } };
  if (parsed === undefined)
    return { ok: false, failure: { ms, kind: 'invalid', reason: 'invalid json', message: `response is not JSON: ${text.slice(0, 120)}` } };
  if (typeof parsed !== 'object' || parsed === null || !('result' in parsed)) {
    return {
      ok: false,
      failure: { ms, kind: 'invalid', reason: 'invalid response', message: `no result or error member: ${text.slice(0, 120)}` },
    };
  }
  return { ok: true, ms, result: (parsed as { result: unknown }).result };
}

function readRpcError(parsed: unknown): { code: number; message: string } | null {
  if (typeof parsed !== 'object' || parsed === null || !('error' in parsed)) return null;
  const error = (parsed as { error: unknown }).error;
  if (typeof error !== 'object' || error === null) return { code: 0, message: String(error) };
  const { code, message } = error as { code?: unknown; message?: unknown };
  return { code: typeof code === 'number' ? code : 0, message: typeof message === 'string' ? message : JSON.stringify(error) };
}

function transportFailure(err: NodeJS.ErrnoException, ms: number): Omit<CallFailure, 'index'> {
  const errno = err.code ?? 'UNKNOWN';
  const transport = classifyTransport(errno);
  return { ms, kind: 'transport', reason: `transport ${transport}`, transport, errno, message: err.message };
}

/** Maps a socket error code to the classes #1222 names (timeout, reset) plus refused and other. */
export function classifyTransport(errno: string): TransportErrorClass {
  if (errno === 'ETIMEDOUT' || errno === 'UND_ERR_HEADERS_TIMEOUT' || errno === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
  if (errno === 'ECONNRESET' || errno === 'EPIPE' || errno === 'UND_ERR_SOCKET') return 'reset';
  if (errno === 'ECONNREFUSED') return 'refused';
  return 'other';
}

function round3(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
