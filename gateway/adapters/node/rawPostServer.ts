import { STATUS_CODES, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { HeaderLookup } from '../../middleware/identity/resolveIdentity.ts';
import type { RpcPostAnswer, RpcPostHandler } from '../../pipeline/answerRpcPost.ts';
import { GatewayError } from '../../rpc/gatewayError.ts';
import { endpointKey } from './rpcPostListener.ts';

/** Limits of the raw POST server (the node:http server's, so both paths cut off the same clients). */
export interface RawPostOptions {
  maxBodyBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (node:http's keepAliveTimeout). */
  keepAliveTimeoutMs: number;
}

/** The listening front server and how to close the connections it still holds itself. */
export interface RawPostServer {
  server: Server;
  /** Destroys every connection not handed over to node:http. */
  closeAllConnections(): void;
}

/** node:http's default maxHeaderSize: a longer header block is handed over (node:http answers 431). */
const MAX_HEADER_BYTES = 16_384;
/** Answers not yet written on one connection before reading more of it pauses (pipelining clients). */
const MAX_PIPELINED = 16;
const CRLF2 = Buffer.from('\r\n\r\n');
/** Characters of a header name (an RFC 9110 token). */
const TOKEN = new Uint8Array(128);
for (const c of "!#$%&'*+.^_`|~-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TOKEN[c.charCodeAt(0)] = 1;
const isOws = (c: number) => c === 32 || c === 9;
/**
 * A character a header value may not hold (only tabs and visible latin1 are allowed): what this server reads, and
 * what it writes (it may echo a request's header). A regex, not a charCodeAt loop: the values written are often
 * concatenated strings, which the regex flattens once and a loop would walk through V8's slow path per character.
 */
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

let dateText = '';
let dateSecond = 0;
/** The Date header, formatted once per second (as node:http does). */
function httpDate(): string {
  const s = Math.floor(Date.now() / 1000);
  if (s !== dateSecond) {
    dateSecond = s;
    dateText = new Date(s * 1000).toUTCString();
  }
  return dateText;
}

/** One request read in full: what the pipeline needs. */
interface ParsedPost {
  key: string;
  headers: Map<string, string>;
  body: Buffer;
  close: boolean;
}

/** The request at the head of `buf`: parsed, incomplete (wait for more bytes), or not ours (hand over to node:http). */
type Parse =
  | { kind: 'post'; post: ParsedPost; used: number }
  /** Waiting for more bytes; `post` (without its body) once the header block is in. */
  | { kind: 'partial'; post?: ParsedPost }
  | { kind: 'other' };

function parseHead(buf: Buffer, maxBody: number): Parse {
  const end = buf.indexOf(CRLF2);
  if (end < 0) return buf.length > MAX_HEADER_BYTES ? { kind: 'other' } : { kind: 'partial' };
  if (end > MAX_HEADER_BYTES) return { kind: 'other' };
  const text = buf.toString('latin1', 0, end);
  const firstEnd = text.indexOf('\r\n');
  const first = firstEnd < 0 ? text : text.slice(0, firstEnd);
  if (!first.startsWith('POST ') || !first.endsWith(' HTTP/1.1')) return { kind: 'other' };
  const target = first.slice(5, -9);
  let key: string | undefined;
  try {
    key = endpointKey(target);
  } catch {
    // A malformed %-escape: node:http's path answers it as before.
    return { kind: 'other' };
  }
  if (key === undefined || target.includes(' ')) return { kind: 'other' };
  const headers = new Map<string, string>();
  let length: number | undefined;
  let close = false;
  // Header lines of the simple shape only (token name, a colon, a value of visible characters, tabs and spaces: no
  // obs-fold, no bare CR or LF, no other control character); anything else is node:http's. Scanned in place (one
  // pass per line, no array of lines, no regex match per line): this runs once per request.
  for (let at = firstEnd; at >= 0;) {
    const start = at + 2;
    const next = text.indexOf('\r\n', start);
    const stop = next < 0 ? text.length : next;
    at = next;
    let colon = start;
    while (colon < stop && text.charCodeAt(colon) < 128 && TOKEN[text.charCodeAt(colon)] === 1) colon++;
    if (colon === start || colon === stop || text.charCodeAt(colon) !== 58) return { kind: 'other' };
    let valueStart = colon + 1;
    while (valueStart < stop && isOws(text.charCodeAt(valueStart))) valueStart++;
    let valueEnd = stop;
    while (valueEnd > valueStart && isOws(text.charCodeAt(valueEnd - 1))) valueEnd--;
    const value = text.slice(valueStart, valueEnd);
    if (BAD_VALUE.test(value)) return { kind: 'other' };
    const name = text.slice(start, colon).toLowerCase();
    switch (name) {
      case 'content-length':
        // One plain length; anything else (several, a list, a sign) is node:http's to refuse.
        if (length !== undefined || !/^\d{1,10}$/.test(value)) return { kind: 'other' };
        length = Number(value);
        break;
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
        return { kind: 'other' };
      case 'connection': {
        // What clients send (a keep-alive client says so or nothing): no list to split.
        const plain = value.toLowerCase();
        if (plain === 'keep-alive') break;
        if (plain === 'close') {
          close = true;
          break;
        }
        const tokens = plain.split(',').map((t) => t.trim());
        if (tokens.includes('upgrade')) return { kind: 'other' };
        if (tokens.includes('close')) close = true;
        break;
      }
    }
    const prev = headers.get(name);
    headers.set(name, prev === undefined ? value : `${prev}, ${value}`);
  }
  // No length, or a body past the limit: node:http's path answers them (413 and close for an oversized one).
  if (length === undefined || length > maxBody) return { kind: 'other' };
  const used = end + 4 + length;
  if (buf.length < used) return { kind: 'partial', post: { key, headers, body: Buffer.alloc(0), close } };
  // Text in the request headers is latin1 as node:http gives it; the body is bytes.
  return { kind: 'post', post: { key, headers, body: buf.subarray(end + 4, used), close }, used };
}

const lookup = (headers: Map<string, string>): HeaderLookup => ({ get: (name) => headers.get(name.toLowerCase()) ?? null });

function responseText(a: RpcPostAnswer, close: boolean, keepAliveSeconds: number): string {
  let head = `HTTP/1.1 ${a.status} ${STATUS_CODES[a.status] ?? ''}\r\n`;
  for (const name in a.headers) {
    const value = a.headers[name] as string;
    if (BAD_VALUE.test(value)) throw new Error(`invalid header value for ${name}`);
    head += `${name}: ${value}\r\n`;
  }
  head += `Date: ${httpDate()}\r\n`;
  head += close ? 'Connection: close\r\n' : `Connection: keep-alive\r\nKeep-Alive: timeout=${keepAliveSeconds}\r\n`;
  return `${head}Content-Length: ${Buffer.byteLength(a.body)}\r\n\r\n${a.body}`;
}

const INTERNAL_ERROR_BODY = '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}';
const INTERNAL_ERROR =
  'HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nConnection: close\r\n' +
  `Content-Length: ${INTERNAL_ERROR_BODY.length}\r\n\r\n${INTERNAL_ERROR_BODY}`;

/**
 * A `net` server in front of the gateway's node:http server that answers JSON-RPC POSTs (`/`, `/v1/<key>`) of the
 * plain shape (HTTP/1.1, one Content-Length within the body limit, no Transfer-Encoding, Expect or Upgrade) itself:
 * one string parse of the header block, the pipeline, one socket write per answer (several, when pipelined answers
 * are ready together). node:http's IncomingMessage/ServerResponse machinery was the largest share of a cached hit's
 * CPU (docs/decisions/0042-gateway-raw-post-server.md). Anything else on the connection (another method or path, a
 * chunked or oversized body, Expect: 100-continue, a WebSocket upgrade, a malformed request) hands the connection,
 * from that request on and once every earlier answer is written, to `http` with the bytes already read: node:http
 * answers it exactly as before. Pipelined requests are answered in order; a client that half-closes gets its answers
 * first; a request not complete within headersTimeoutMs (header block) or requestTimeoutMs (body) gets 408 and the
 * connection closes; an idle connection closes after keepAliveTimeoutMs.
 */
export function rawPostServer(http: HttpServer, answerPost: RpcPostHandler, opts: RawPostOptions): RawPostServer {
  const open = new Set<Socket>();
  const keepAliveSeconds = Math.max(1, Math.floor(opts.keepAliveTimeoutMs / 1000));

  const onConnection = (socket: Socket) => {
    open.add(socket);
    socket.setNoDelay(true);
    let buf: Buffer | undefined;
    /** Answers in request order; `text` once ready. */
    const pending: { text?: string }[] = [];
    let closed = false;
    /** Stop reading requests: the connection ends after the pending answers (Connection: close, or half-closed). */
    let ending = false;
    /** The request at the head of `buf` is node:http's: hand over once `pending` is empty. */
    let handover = false;
    /** The slow-client deadline of the request being read (armed when a read ends mid-request). */
    let timer: NodeJS.Timeout | undefined;
    let startedAt = 0;

    const detach = () => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onClose);
      socket.off('timeout', onIdle);
      socket.off('drain', onDrain);
      socket.off('error', onError);
      socket.setTimeout(0);
      if (timer) clearTimeout(timer);
      open.delete(socket);
    };
    const flush = () => {
      let out = '';
      while (pending.length > 0 && pending[0]?.text !== undefined) out += (pending.shift() as { text: string }).text;
      // A client that does not read: stop reading its requests until the answers drain.
      if (out && !closed && !socket.write(out)) socket.pause();
      if (pending.length > 0 || closed) return;
      if (ending) {
        socket.end();
        return;
      }
      if (handover) {
        detach();
        http.emit('connection', socket);
        // The bytes already read go to node:http's parser as its own 'data' listener would get them (unshift would
        // leave them in the stream's buffer, which node:http's parser, reading the handle directly, never drains).
        if (buf?.length) socket.emit('data', buf);
        buf = undefined;
        return;
      }
      if (socket.isPaused() && !socket.writableNeedDrain) socket.resume();
      if (buf?.length) parse();
    };
    const answer = (post: ParsedPost) => {
      const slot: { text?: string } = {};
      pending.push(slot);
      answerPost({
        clientGone: () => closed,
        headers: lookup(post.headers),
        pathKey: post.key || undefined,
        remote: socket.remoteAddress,
        readBody: async (max) => {
          if (post.body.length > max) throw new GatewayError('tooLarge', `request too large: ${post.body.length} bytes exceeds ${max}`);
          return post.body.toString('utf8');
        },
      }).then(
        (a) => {
          try {
            slot.text = responseText(a, post.close, keepAliveSeconds);
          } catch {
            slot.text = INTERNAL_ERROR;
            ending = true;
          }
          flush();
        },
        () => {
          // answerPost never throws; a failure here is a bug, still answered as JSON-RPC -32603.
          slot.text = INTERNAL_ERROR;
          ending = true;
          flush();
        },
      );
    };
    const parse = () => {
      while (buf && buf.length > 0 && !ending && !handover) {
        if (pending.length >= MAX_PIPELINED) {
          socket.pause();
          return;
        }
        const r = parseHead(buf, opts.maxBodyBytes);
        if (r.kind === 'other') {
          handover = true;
          break;
        }
        if (r.kind === 'partial') {
          // A slow client: the request must be complete within the limits, counted from its first byte here.
          if (!timer) {
            startedAt = performance.now();
            armTimer(opts.headersTimeoutMs);
          }
          return;
        }
        if (timer) clearTimeout(timer);
        timer = undefined;
        buf = r.used === buf.length ? undefined : buf.subarray(r.used);
        if (r.post.close) ending = true;
        answer(r.post);
      }
      if (handover && pending.length === 0) flush();
    };
    const armTimer = (ms: number) => {
      timer = setTimeout(() => {
        timer = undefined;
        if (closed || !buf?.length || pending.length > 0) return;
        // Headers in within headersTimeoutMs: the whole request has until requestTimeoutMs (node:http's rule).
        const r = parseHead(buf, opts.maxBodyBytes);
        const rest = startedAt + opts.requestTimeoutMs - performance.now();
        if (r.kind === 'partial' && r.post && rest > 0) {
          armTimer(rest);
          return;
        }
        abandon();
        detach();
        socket.on('error', onError);
        socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
      }, ms);
    };
    const onData = (chunk: Buffer) => {
      buf = buf?.length ? Buffer.concat([buf, chunk]) : chunk;
      if (!ending && !handover) parse();
    };
    const onEnd = () => {
      // Half-closed by the client: as on node:http (httpAllowHalfOpen off), the client is gone; answers in flight are
      // not written and are logged as 499.
      abandon();
      closed = true;
      socket.end();
    };
    /**
     * A request whose header block came but whose body never will (the client left, or timed out): the pipeline
     * still sees it, with a body read that fails, so it is logged and counted (499) as on node:http's path.
     */
    const abandon = () => {
      if (handover || !buf?.length) return;
      const r = parseHead(buf, opts.maxBodyBytes);
      buf = undefined;
      if (r.kind !== 'partial' || !r.post) return;
      closed = true;
      void answerPost({
        clientGone: () => true,
        headers: lookup(r.post.headers),
        pathKey: r.post.key || undefined,
        remote: socket.remoteAddress,
        readBody: () => Promise.reject(new Error('client closed the connection')),
      }).catch(() => undefined);
    };
    const onClose = () => {
      abandon();
      closed = true;
      detach();
    };
    const onIdle = () => {
      if (pending.length === 0 && !buf?.length) socket.destroy();
    };
    const onError = () => socket.destroy();
    const onDrain = () => {
      if (socket.isPaused() && pending.length < MAX_PIPELINED) {
        socket.resume();
        parse();
      }
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('close', onClose);
    socket.on('timeout', onIdle);
    socket.on('drain', onDrain);
    socket.on('error', onError);
    socket.setTimeout(opts.keepAliveTimeoutMs);
  };

  const server = createServer({ allowHalfOpen: true }, onConnection);
  return {
    server,
    closeAllConnections() {
      for (const s of open) s.destroy();
      open.clear();
    },
  };
}
