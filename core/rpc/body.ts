/**
 * Reads an HTTP request body from Node's IncomingMessage with a hard byte cap: an announced Content-Length over the
 * cap is refused before reading, a chunked body stops being buffered the moment it passes the cap, and a client
 * that half-closes mid-body settles the promise instead of leaving it pending.
 */
import { type IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; text: string } | { ok: false; reason: 'too-large' | 'aborted' };

export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const announced = Number(req.headers['content-length'] ?? -1);
  if (announced > maxBytes) return Promise.resolve({ ok: false, reason: 'too-large' });
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
        req.resume(); // discard the rest without buffering it
        finish({ ok: false, reason: 'too-large' });
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
