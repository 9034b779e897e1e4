/**
 * Transport-independent JSON-RPC 2.0 processing of one request text (HTTP body or WebSocket message): limits (depth,
 * batch size, rate bucket, response size, deadline), message classification as geth (calls answered, notifications
 * run without an answer, responses ignored), method lookup, load shedding, and error mapping. Batches run in order
 * and keep the order of their answers.
 */
import { XoneError } from '../errors.ts';
import { RPC_ERRORS, RpcError, type RpcErrorName, methodNotFound, toWireError, type WireError } from './errors.ts';
import { RawJson, encodeJson, errorResponse, exceedsDepth, resultResponse } from './json.ts';
import { type RpcOptions } from './options.ts';
import { ParamError } from './params.ts';
import { CallScope, type OnClientGone } from './callScope.ts';
import { RawId, keepRawIds } from './rawIds.ts';
import { type MethodSpec, type MethodTable, type RpcConnection } from './registry.ts';
import { type TokenBuckets } from './limits/tokenBucket.ts';

/** Where a request came from. */
export interface RequestMeta {
  clientIp: string;
  /** Fairness key of the execution pool (default `clientIp`): the client a trusted gateway named. */
  client?: string;
  transport: 'http' | 'ws';
  connection?: RpcConnection;
  /** Tells when the client goes away (connection closed before the answer): its pool work is then cancelled. */
  onGone?: OnClientGone;
  /** The caller can send a Buffer body (HTTP): a large cached result then goes out as its memoized UTF-8 bytes. */
  acceptsBytes?: boolean;
}

/** The answer to one request text: body (null = nothing to send), HTTP status, Retry-After seconds. */
export interface DispatchResult {
  /** A Buffer only when the request's meta had `acceptsBytes`. */
  body: string | Buffer | null;
  status: number;
  retryAfter?: number;
}

/** A batch running longer than this on the loop yields to other work before its next call. */
const YIELD_EVERY_MS = 4;
/** Results above this many characters are answered from their memoized bytes when the transport takes bytes. */
const BYTES_MIN = 64 * 1024;
const RESPONSE_END = Buffer.from('}');

type Classified =
  | { kind: 'call'; id: unknown; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'invalid'; id: unknown }
  | { kind: 'response' };

const isValidId = (id: unknown): boolean =>
  id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) || id instanceof RawId;

/** geth's jsonrpcMessage predicates: isCall / isNotification / isResponse, anything else invalid. */
function classify(m: unknown): Classified {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return { kind: 'invalid', id: null };
  const o = m as Record<string, unknown>;
  const hasId = Object.hasOwn(o, 'id');
  const validId = hasId && isValidId(o.id);
  const id = validId ? o.id : null;
  if (o.jsonrpc !== '2.0') return { kind: 'invalid', id };
  if (typeof o.method !== 'string' || o.method === '') {
    if (validId && o.method === undefined && (Object.hasOwn(o, 'result') || Object.hasOwn(o, 'error'))) return { kind: 'response' };
    return { kind: 'invalid', id };
  }
  if (!hasId) return { kind: 'notification', method: o.method, params: o.params };
  if (!validId) return { kind: 'invalid', id: null };
  return { kind: 'call', id, method: o.method, params: o.params };
}

const firstCallId = (batch: unknown[]): unknown => {
  for (const m of batch) {
    const c = classify(m);
    if (c.kind === 'call') return c.id;
  }
  return null;
};

const tableError = (name: RpcErrorName): WireError => ({ code: RPC_ERRORS[name].code, message: RPC_ERRORS[name].message });

/** Any thrown value as a wire error; ParamErrors escaping a decoder are still -32602. */
function wire(err: unknown): WireError {
  if (err instanceof ParamError) return { code: RPC_ERRORS.INVALID_PARAMS.code, message: err.message };
  return toWireError(err);
}

export interface DispatcherDeps {
  limiter?: TokenBuckets | null;
  shed?: () => boolean;
  /** Called with failures that became -32603, for logging. */
  onInternalError?: (err: unknown, method: string) => void;
}

export class Dispatcher {
  private readonly methods: Map<string, MethodSpec>;

  constructor(
    private readonly opts: RpcOptions,
    methods: MethodTable,
    private readonly deps: DispatcherDeps = {},
  ) {
    this.methods = new Map(Object.entries(methods));
  }

  /** Method names served (for docs and tests). */
  get methodNames(): string[] {
    return [...this.methods.keys()];
  }

  /** Processes one request text. Never throws. */
  async handle(text: string, meta: RequestMeta): Promise<DispatchResult> {
    if (exceedsDepth(text, this.opts.maxDepth)) return { body: errorResponse(null, tableError('TOO_DEEP')), status: 200 };
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return { body: errorResponse(null, tableError('PARSE_ERROR')), status: 200 };
    }
    keepRawIds(text, msg);
    if (Array.isArray(msg)) return this.batch(msg, meta);
    const limited = this.deps.limiter ? this.rateLimit(meta, 1, () => classifyId(msg), false) : null;
    if (limited) return limited;
    const scope = this.scope(meta);
    try {
      const out = this.one(msg, scope, meta.acceptsBytes === true);
      const body = typeof out === 'object' && out !== null ? await out : out;
      // A single call refused for load (the execution pool's queue is full) is an HTTP 429 with Retry-After.
      if (scope.retryAfter !== undefined) return { body, status: 429, retryAfter: scope.retryAfter };
      return { body, status: 200 };
    } finally {
      scope.dispose();
    }
  }

  private rateLimit(meta: RequestMeta, n: number, id: () => unknown, batch: boolean): DispatchResult | null {
    const r = this.deps.limiter?.take(meta.clientIp, n);
    if (!r || r.ok) return null;
    const err = errorResponse(id(), tableError('LIMIT_EXCEEDED'));
    return { body: batch ? '[' + err + ']' : err, status: 429, retryAfter: r.retryAfterSeconds };
  }

  private scope(meta: RequestMeta): DispatchScope {
    return new DispatchScope(
      Date.now() + this.opts.callTimeoutMs,
      meta.clientIp,
      meta.transport,
      meta.connection,
      meta.client ?? meta.clientIp,
      meta.onGone,
    );
  }

  private async batch(msgs: unknown[], meta: RequestMeta): Promise<DispatchResult> {
    if (msgs.length === 0) return { body: errorResponse(null, tableError('EMPTY_BATCH')), status: 200 };
    if (msgs.length > this.opts.batchLimit)
      return { body: '[' + errorResponse(firstCallId(msgs), tableError('BATCH_TOO_LARGE')) + ']', status: 200 };
    const limited = this.rateLimit(meta, msgs.length, () => firstCallId(msgs), true);
    if (limited) return limited;
    const ctx = this.scope(meta);
    const parts: string[] = [];
    let bytes = 0;
    let slice = performance.now();
    try {
      for (let i = 0; i < msgs.length; i++) {
        // A long batch of cheap calls gives the loop back every few ms, so other clients' requests (and the chain's
        // events) are not held behind it: no --rpc.batch-request-limit value can stall the loop.
        if (performance.now() - slice > YIELD_EVERY_MS) {
          await new Promise<void>((r) => setImmediate(r));
          slice = performance.now();
        }
        const expired = ctx.expired;
        if (expired || bytes > this.opts.batchResponseMaxBytes) {
          // geth: once the deadline or the response budget is gone, every remaining call gets that error.
          const err = tableError(expired ? 'TIMEOUT' : 'RESPONSE_TOO_LARGE');
          for (let j = i; j < msgs.length; j++) {
            const c = classify(msgs[j]);
            if (c.kind === 'call') parts.push(errorResponse(c.id, err));
            else if (c.kind === 'invalid') parts.push(errorResponse(c.id, tableError('INVALID_REQUEST')));
          }
          break;
        }
        const out = (await this.one(msgs[i], ctx, false)) as string | null;
        if (out !== null) {
          parts.push(out);
          bytes += out.length;
        }
      }
    } finally {
      ctx.dispose();
    }
    const body = parts.length > 0 ? '[' + parts.join(',') + ']' : null;
    return ctx.retryAfter !== undefined ? { body, status: 200, retryAfter: ctx.retryAfter } : { body, status: 200 };
  }

  /** One message → its answer text, or null for notifications and responses. */
  private one(msg: unknown, ctx: DispatchScope, bytes: boolean): string | Buffer | null | Promise<string | Buffer | null> {
    const c = classify(msg);
    if (c.kind === 'response') return null;
    if (c.kind === 'invalid') return errorResponse(c.id, tableError('INVALID_REQUEST'));
    const id = c.kind === 'call' ? c.id : undefined;
    const answer = c.kind === 'call';
    let result: unknown;
    try {
      result = this.invoke(c.method, c.params, ctx);
    } catch (err) {
      return answer ? this.fail(id, err, c.method, ctx) : null;
    }
    if (result instanceof Promise) {
      return withDeadline(result, ctx.signal).then(
        (v) => (answer ? this.answer(id, v, bytes) : null),
        (err) => (answer ? this.fail(id, err, c.method, ctx) : null),
      );
    }
    return answer ? this.answer(id, result, bytes) : null;
  }

  /** The success response; a large cached result as bytes around its memoized UTF-8 (no per-request encode). */
  private answer(id: unknown, result: unknown, bytes: boolean): string | Buffer {
    if (bytes && result instanceof RawJson && result.size > BYTES_MIN) {
      const head = resultResponse(id, '');
      return result.body(head.slice(0, -1), RESPONSE_END);
    }
    return resultResponse(id, encodeJson(result));
  }

  private fail(id: unknown, err: unknown, method: string, ctx: DispatchScope): string {
    const w = wire(err);
    if (w.code === RPC_ERRORS.INTERNAL.code && !(err instanceof RpcError)) this.deps.onInternalError?.(err, method);
    const retry = retryAfterOf(err);
    if (retry !== undefined && w.code === RPC_ERRORS.LIMIT_EXCEEDED.code) ctx.retryAfter = Math.max(ctx.retryAfter ?? 0, retry);
    return errorResponse(id, w);
  }

  private invoke(name: string, params: unknown, ctx: CallScope): unknown {
    const spec = this.methods.get(name);
    if (!spec) throw methodNotFound(name);
    if (ctx.expired) throw new RpcError('TIMEOUT');
    if (spec.expensive && this.deps.shed?.()) throw new RpcError('LIMIT_EXCEEDED', 'limit exceeded: node is shedding load');
    return spec.run(params, ctx);
  }
}

/** A request's scope plus what its answer learned on the way: the Retry-After of a load refusal. */
class DispatchScope extends CallScope {
  retryAfter: number | undefined;
}

/** `meta.retryAfterSeconds` of a load refusal (a XoneError mapped to -32005, e.g. the execution pool's full queue). */
function retryAfterOf(err: unknown): number | undefined {
  const v = err instanceof XoneError ? err.meta.retryAfterSeconds : undefined;
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.ceil(v) : undefined;
}

function classifyId(msg: unknown): unknown {
  const c = classify(msg);
  return c.kind === 'call' || c.kind === 'invalid' ? c.id : null;
}

/** Resolves with the handler's value or rejects with TIMEOUT when the signal fires first. */
function withDeadline<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new RpcError('TIMEOUT'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RpcError('TIMEOUT'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
