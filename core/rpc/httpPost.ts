/**
 * JSON-RPC over HTTP POST, on Node's own request and response objects. geth's HTTP rules: 415 for a non-JSON content
 * type, 413 for an oversized body, an empty 200 when every message was a notification. An oversized body is answered
 * at once and the rest of it is read and dropped (up to DRAIN_MAX_BYTES) before the connection is reused or closed,
 * so the client sees the 413 instead of a reset: closing a socket with unread bytes makes the kernel send RST, which
 * destroys the answer on its way. A client whose connection closes before its answer has its pool work cancelled.
 * The Hono app (http.ts) routes through `answerPost` too; `rpcPostListener` serves the POSTs straight from
 * node:http, ahead of Hono, because building Hono's Request/Context/Response per call cost more than the rest of an
 * eth_blockNumber answer (docs/decisions/0026-rpc-post-fast-path.md).
 */
import { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { readBody, type BodyResult } from './body.ts';
import { CLIENT_HEADER, clientKeyResolver } from './clientKey.ts';
import { type Dispatcher } from './dispatch.ts';
import { RPC_ERRORS } from './errors.ts';
import { errorResponse } from './json.ts';
import { type RpcOptions } from './options.ts';

const JSON_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest']);
const JSON_TYPE = 'application/json';
/** Answers above this go out as one Buffer (a big string with Content-Length is concatenated with the headers). */
const LARGE_BODY = 64 * 1024;
/** An oversized body announced or sent beyond this is not drained: the connection is closed (the client may see a reset). */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

/** What every POST answer needs: the options, the dispatcher, and who a request counts as. */
export interface PostContext {
  opts: RpcOptions;
  dispatcher: Dispatcher;
  clientOf: (remote: string, header: string | string[] | undefined) => string | undefined;
}

export function postContext(opts: RpcOptions, dispatcher: Dispatcher): PostContext {
  return { opts, dispatcher, clientOf: clientKeyResolver(opts.trustedGateways) };
}

/** The HTTP answer to one POST. */
export interface PostAnswer {
  status: number;
  body: string | Buffer;
  retryAfter?: number;
  /** Close the connection after answering (the rest of an oversized body is not read). */
  close?: boolean;
}

const tableBody = (name: 'BODY_TOO_LARGE' | 'BAD_CONTENT_TYPE' | 'INVALID_REQUEST', message?: string): string =>
  errorResponse(null, { code: RPC_ERRORS[name].code, message: message ?? RPC_ERRORS[name].message });

/** True when the Content-Type (absent = JSON, as geth) is one of the JSON types geth accepts. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined || header === JSON_TYPE) return true;
  return JSON_TYPES.has(header.split(';')[0].trim().toLowerCase());
}

/** Reads the body of `incoming` and dispatches it. Never throws. */
export async function answerPost(contentType: string | undefined, incoming: IncomingMessage, ctx: PostContext): Promise<PostAnswer> {
  if (!isJsonContentType(contentType)) return { status: 415, body: tableBody('BAD_CONTENT_TYPE') };
  return answerBody(await readBody(incoming, ctx.opts.maxBodyBytes, DRAIN_MAX_BYTES), incoming, ctx);
}

/** Dispatches a body already read from `incoming` (the early listener reads some before the server exists). */
export async function answerBody(body: BodyResult, incoming: IncomingMessage, ctx: PostContext): Promise<PostAnswer> {
  const { opts, dispatcher } = ctx;
  if (!body.ok) {
    if (body.reason === 'too-large')
      return {
        status: 413,
        body: tableBody('BODY_TOO_LARGE', `content length too large (>${opts.maxBodyBytes})`),
        // Within the drain budget the rest of the body is read and dropped and the connection lives on.
        close: body.drained === false,
      };
    return { status: 400, body: tableBody('INVALID_REQUEST'), close: true };
  }
  const remote = incoming.socket.remoteAddress ?? '';
  const client = ctx.clientOf(remote, incoming.headers[CLIENT_HEADER]);
  const socket = incoming.socket;
  const r = await dispatcher.handle(body.text, {
    clientIp: remote,
    ...(client !== undefined ? { client } : {}),
    transport: 'http',
    acceptsBytes: true,
    // The socket closing before the answer is the client leaving (HTTP/1.1 has no other way to say it).
    onGone: (fn) => {
      socket.once('close', fn);
      return () => socket.off('close', fn);
    },
  });
  const out = r.body ?? '';
  const bytes = typeof out === 'string' && out.length > LARGE_BODY ? Buffer.from(out, 'utf8') : out;
  return { status: r.status, body: bytes, ...(r.retryAfter !== undefined ? { retryAfter: r.retryAfter } : {}) };
}

/** Response headers of an answer (Content-Length set, so Node writes headers and a small body in one write). */
export function answerHeaders(a: PostAnswer): Record<string, string> {
  const length = typeof a.body === 'string' ? Buffer.byteLength(a.body) : a.body.length;
  const headers: Record<string, string> = { 'content-type': JSON_TYPE, 'content-length': String(length) };
  if (a.retryAfter !== undefined) headers['retry-after'] = String(a.retryAfter);
  if (a.close) headers.connection = 'close';
  return headers;
}

/**
 * A node:http listener that answers JSON-RPC POSTs itself and hands every other request (GET /health, /metrics,
 * POSTs to `handledElsewhere` paths, 405s) to `fallback` (the Hono app's listener).
 */
export function rpcPostListener(ctx: PostContext, fallback: RequestListener, handledElsewhere: (path: string) => boolean): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || handledElsewhere(req.url ?? '/')) {
      void fallback(req, res);
      return;
    }
    writeAnswer(res, answerPost(req.headers['content-type'], req, ctx));
  };
}

/** Writes an answer to `res`. */
export function writeAnswer(res: ServerResponse, answer: Promise<PostAnswer>): void {
  answer.then(
    (a) => {
      res.writeHead(a.status, answerHeaders(a));
      res.end(a.body);
    },
    () => {
      // answerPost does not throw; a failure here is a bug, still answered as JSON-RPC -32603.
      res.writeHead(500, { 'content-type': JSON_TYPE });
      res.end(errorResponse(null, { code: RPC_ERRORS.INTERNAL.code, message: RPC_ERRORS.INTERNAL.message }));
    },
  );
}
