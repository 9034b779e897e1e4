import { connect, type Socket } from 'node:net';

/** One answer of an upstream: status, the lower-cased headers, the body as text. */
export interface Http1Response {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** The connection closed (or sent something that is not HTTP/1.1) before its answer was complete. */
export class UpstreamSocketError extends Error {
  override readonly name = 'SocketError';
}

/** No complete answer within the request's time. */
export class UpstreamTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

interface Pending {
  resolve(r: Http1Response): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

interface Queued {
  request: string;
  timeoutMs: number;
  resolve(r: Http1Response): void;
  reject(err: Error): void;
}

const HEAD_END = Buffer.from('\r\n\r\n');
/** Longest response head accepted (undici's default maximum header size is 16 KiB). */
const MAX_HEAD_BYTES = 16_384;

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})/;
/** Tab or space: optional whitespace around a header value. */
const isOws = (c: number) => c === 32 || c === 9;

/**
 * A response head (status line and header lines, without the blank line): status, HTTP/1.x minor version, headers by
 * lower-cased name (repeated ones joined with ", "). One pass of indexOf over the text, no array of lines: this runs
 * once per forwarded call.
 */
function parseResponseHead(text: string): { status: number; minor: string; headers: Map<string, string> } {
  const m = STATUS_LINE.exec(text);
  if (!m) throw new UpstreamSocketError('upstream answer is not HTTP/1.x');
  const headers = new Map<string, string>();
  for (let at = text.indexOf('\r\n'); at >= 0;) {
    const start = at + 2;
    const next = text.indexOf('\r\n', start);
    const stop = next < 0 ? text.length : next;
    const colon = text.indexOf(':', start);
    if (colon > start && colon < stop) {
      let nameEnd = colon;
      while (nameEnd > start && isOws(text.charCodeAt(nameEnd - 1))) nameEnd--;
      let valueStart = colon + 1;
      while (valueStart < stop && isOws(text.charCodeAt(valueStart))) valueStart++;
      let valueEnd = stop;
      while (valueEnd > valueStart && isOws(text.charCodeAt(valueEnd - 1))) valueEnd--;
      const name = text.slice(start, nameEnd).toLowerCase();
      const value = text.slice(valueStart, valueEnd);
      const seen = headers.get(name);
      headers.set(name, seen === undefined ? value : `${seen}, ${value}`);
    }
    at = next;
  }
  return { status: Number(m[2]), minor: m[1] as string, headers };
}

/**
 * One keep-alive connection: a single request at a time, its answer parsed as it arrives (Content-Length, chunked,
 * or until close; 1xx interim answers skipped). Reusable again once an answer is complete and it did not ask to close.
 */
class Connection {
  private buf: Buffer = Buffer.alloc(0);
  private pending: Pending | undefined;
  /** Parsed head of the answer being read. */
  private head: { status: number; headers: Map<string, string>; bodyAt: number } | undefined;
  private chunked: { at: number; parts: Buffer[] } | undefined;
  private reusable = true;
  closed = false;
  idleSince = 0;
  /** Idle longest before closing (the server's Keep-Alive: timeout hint, when shorter than the pool's). */
  idleLimitMs: number;

  constructor(
    readonly socket: Socket,
    idleLimitMs: number,
    private readonly onDone: (c: Connection) => void,
  ) {
    this.idleLimitMs = idleLimitMs;
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => this.onData(d));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new UpstreamSocketError('upstream closed the connection')));
  }

  get busy(): boolean {
    return this.pending !== undefined;
  }

  send(request: string, timeoutMs: number, resolve: (r: Http1Response) => void, reject: (err: Error) => void): void {
    const timer = setTimeout(() => this.fail(new UpstreamTimeoutError(`upstream did not answer within ${timeoutMs} ms`)), timeoutMs);
    this.pending = { resolve, reject, timer };
    this.socket.ref();
    this.socket.write(request);
  }

  private onData(d: Buffer): void {
    if (!this.pending) {
      // Bytes nobody asked for: the stream is out of step, so the connection cannot be trusted again.
      this.close();
      return;
    }
    this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
    try {
      this.parse();
    } catch (err) {
      this.fail(err instanceof Error ? err : new UpstreamSocketError(String(err)));
    }
  }

  private parse(): void {
    for (;;) {
      if (!this.head) {
        const end = this.buf.indexOf(HEAD_END);
        if (end < 0) {
          if (this.buf.length > MAX_HEAD_BYTES) throw new UpstreamSocketError('upstream answer head too large');
          return;
        }
        const { status, minor, headers } = parseResponseHead(this.buf.toString('latin1', 0, end));
        if (status >= 100 && status < 200) {
          // An interim answer (100 Continue, 103 Early Hints): the real one follows.
          this.buf = this.buf.subarray(end + 4);
          continue;
        }
        const connection = headers.get('connection')?.toLowerCase() ?? '';
        if (connection.includes('close') || (minor === '0' && !connection.includes('keep-alive'))) this.reusable = false;
        const keepAlive = headers.get('keep-alive');
        const hint = keepAlive === undefined ? null : /timeout=(\d+)/i.exec(keepAlive);
        if (hint) this.idleLimitMs = Math.min(this.idleLimitMs, Math.max(0, Number(hint[1]) * 1000 - 1000));
        this.head = { status, headers, bodyAt: end + 4 };
        if (status === 204 || status === 304) {
          this.finish('', end + 4);
          return;
        }
        const coding = headers.get('transfer-encoding');
        if (coding !== undefined && /chunked/i.test(coding)) this.chunked = { at: end + 4, parts: [] };
      }
      const head = this.head;
      if (this.chunked) {
        const body = this.readChunks(this.chunked);
        if (body !== undefined) this.finish(body, this.chunked.at);
        return;
      }
      const declared = head.headers.get('content-length');
      if (declared === undefined) {
        // No length and not chunked: the body runs to the end of the connection (finished in `fail`).
        this.reusable = false;
        return;
      }
      const length = Number(declared);
      if (!Number.isSafeInteger(length) || length < 0) throw new UpstreamSocketError('upstream answer has a bad Content-Length');
      if (this.buf.length < head.bodyAt + length) return;
      this.finish(this.buf.toString('utf8', head.bodyAt, head.bodyAt + length), head.bodyAt + length);
      return;
    }
  }

  /** Decodes the chunks complete so far; the body once the last chunk and trailers arrived. */
  private readChunks(c: { at: number; parts: Buffer[] }): string | undefined {
    for (;;) {
      const lineEnd = this.buf.indexOf('\r\n', c.at, 'latin1');
      if (lineEnd < 0) return undefined;
      const size = parseInt(this.buf.toString('latin1', c.at, lineEnd).split(';')[0] as string, 16);
      if (!Number.isSafeInteger(size) || size < 0) throw new UpstreamSocketError('upstream answer has a bad chunk size');
      if (size === 0) {
        // The last chunk; trailers (usually none) end with an empty line.
        const end = this.buf.indexOf(HEAD_END, lineEnd, 'latin1');
        if (end < 0) return undefined;
        c.at = end + 4;
        return Buffer.concat(c.parts).toString('utf8');
      }
      if (this.buf.length < lineEnd + 2 + size + 2) return undefined;
      c.parts.push(this.buf.subarray(lineEnd + 2, lineEnd + 2 + size));
      c.at = lineEnd + 2 + size + 2;
    }
  }

  private finish(body: string, consumed: number): void {
    const p = this.pending as Pending;
    const head = this.head as { status: number; headers: Map<string, string> };
    const rest = this.buf.length - consumed;
    this.pending = undefined;
    this.head = undefined;
    this.chunked = undefined;
    this.buf = Buffer.alloc(0);
    clearTimeout(p.timer);
    // More bytes than the answer: out of step; nothing may be sent on it again.
    if (rest > 0) this.reusable = false;
    p.resolve({ status: head.status, headers: head.headers, body });
    if (!this.reusable) this.close();
    else this.onDone(this);
  }

  private fail(err: Error): void {
    const p = this.pending;
    if (p && this.head && !this.chunked && !this.head.headers.has('content-length') && err instanceof UpstreamSocketError) {
      // A body delimited by the end of the connection is complete now.
      this.finish(this.buf.toString('utf8', this.head.bodyAt), this.buf.length);
      return;
    }
    this.pending = undefined;
    if (p) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.close();
  }

  /** Closes without telling the pool (it already let go of this connection). */
  discard(): void {
    this.closed = true;
    this.socket.destroy();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    this.onDone(this);
  }
}

/**
 * Keep-alive HTTP/1.1 POSTs to one plain-http origin (decision 0039: undici's request() cost 90-130 µs of CPU per
 * call here against 43-47 µs for this, sequential, same run). At most `maxConnections` sockets, the most recently
 * used idle one first; requests beyond wait in order. Idle sockets close after `idleMs` (or the server's shorter
 * Keep-Alive hint). A request is one write; its answer is bounded by `timeoutMs` as a whole.
 */
export class Http1Pool {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly queue: Queued[] = [];
  private readonly sweep: ReturnType<typeof setInterval>;
  private closed = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly hostHeader: string,
    private readonly maxConnections: number,
    private readonly idleMs: number,
  ) {
    this.sweep = setInterval(() => this.closeIdle(), Math.max(100, Math.floor(idleMs / 4)));
    this.sweep.unref();
  }

  post(path: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Http1Response> {
    if (this.closed) return Promise.reject(new UpstreamSocketError('client closed'));
    let head = `POST ${path} HTTP/1.1\r\nhost: ${this.hostHeader}\r\n`;
    for (const [name, value] of Object.entries(headers)) {
      if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) return Promise.reject(new TypeError(`invalid header ${name}`));
      head += `${name}: ${value}\r\n`;
    }
    const request = `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    return new Promise((resolve, reject) => {
      const c = this.take();
      if (c) c.send(request, timeoutMs, resolve, reject);
      else this.queue.push({ request, timeoutMs, resolve, reject });
    });
  }

  /** An idle connection, a new one while under the limit, or undefined (wait). */
  private take(): Connection | undefined {
    const now = performance.now();
    for (let idle = this.idle.pop(); idle; idle = this.idle.pop()) {
      if (now - idle.idleSince < idle.idleLimitMs) return idle;
      // Idle past its limit: the server may be closing it right now, so it is not written to again.
      this.all.delete(idle);
      idle.discard();
    }
    if (this.all.size >= this.maxConnections) return undefined;
    const c = new Connection(connect(this.port, this.host), this.idleMs, (done) => this.release(done));
    this.all.add(c);
    return c;
  }

  private release(c: Connection): void {
    if (c.closed) {
      this.all.delete(c);
      const i = this.idle.indexOf(c);
      if (i >= 0) this.idle.splice(i, 1);
    } else {
      c.idleSince = performance.now();
      // An idle keep-alive socket does not keep the process alive.
      c.socket.unref();
      this.idle.push(c);
    }
    const next = this.queue.shift();
    if (!next) return;
    const free = this.take();
    if (free) free.send(next.request, next.timeoutMs, next.resolve, next.reject);
    else this.queue.unshift(next);
  }

  private closeIdle(): void {
    const now = performance.now();
    for (const c of [...this.idle]) if (!c.busy && now - c.idleSince >= c.idleLimitMs) c.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweep);
    for (const q of this.queue.splice(0)) q.reject(new UpstreamSocketError('client closed'));
    for (const c of [...this.all]) c.close();
  }
}
