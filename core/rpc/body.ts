/**
 * Reads an HTTP request body from Node's IncomingMessage with a hard byte cap: an announced Content-Length over the
 * cap is refused before reading, a chunked body stops being buffered the moment it passes the cap, and a client
 * that half-closes mid-body settles the promise instead of leaving it pending. The rest of an oversized body is read
 * and dropped (never buffered) up to `drainMaxBytes`, so the client can read the 413 instead of getting a reset;
 * past that the request is destroyed.
 */
import { type IncomingMessage } from 'node:http';

export type BodyResult =
  { ok: true; text: string } | { ok: false; reason: 'too-large'; drained: boolean } | { ok: false; reason: 'aborted' };

/** Reads and drops what is left of `req`; destroys it once more than `budget` bytes came. */
function drain(req: IncomingMessage, budget: number): void {
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > budget) req.destroy();
  });
  req.resume();
}

export function readBody(req: IncomingMessage, maxBytes: number, drainMaxBytes = 0): Promise<BodyResult> {
  const announced = Number(req.headers['content-length'] ?? -1);
  if (announced > maxBytes) {
    const drained = announced <= drainMaxBytes;
    if (drained) drain(req, drainMaxBytes);
    return Promise.resolve({ ok: false, reason: 'too-large', drained });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: BodyResult) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      resolve(r);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        finish({ ok: false, reason: 'too-large', drained: drainMaxBytes > 0 });
        drain(req, Math.max(0, drainMaxBytes - size));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () =>
      finish({ ok: true, text: chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8') }),
    );
    req.once('error', () => finish({ ok: false, reason: 'aborted' }));
    req.once('close', () => finish({ ok: false, reason: 'aborted' }));
  });
}
