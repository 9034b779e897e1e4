import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { HeaderLookup } from '../../middleware/identity/resolveIdentity.ts';
import type { RpcPostHandler } from '../../pipeline/answerRpcPost.ts';
import { GatewayError } from '../../rpc/gatewayError.ts';

const KEY_PATH = /^\/v1\/([^/?#]+)\/?(?:\?.*)?$/;

/** The `/v1/<key>` key, '' for `/`, or undefined when the path is not a JSON-RPC endpoint. */
export function endpointKey(url: string): string | undefined {
  if (url === '/' || url.startsWith('/?')) return '';
  const m = KEY_PATH.exec(url);
  return m ? decodeURIComponent(m[1] as string) : undefined;
}

/** node:http's lower-cased header map behind the WHATWG `get` the pipeline reads. */
function headerLookup(req: IncomingMessage): HeaderLookup {
  return {
    get(name: string): string | null {
      const v = req.headers[name.toLowerCase()];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
  };
}

/** Reads the body, refusing it (413) past `max` bytes: at once from Content-Length, or when a chunked body passes it. */
function readBody(req: IncomingMessage, max: number): Promise<string> {
  const declared = req.headers['content-length'] === undefined ? -1 : Number(req.headers['content-length']);
  if (declared > max) return Promise.reject(new GatewayError('tooLarge', `request too large: ${declared} bytes exceeds ${max}`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > max) {
        req.removeAllListeners('data');
        req.pause();
        reject(new GatewayError('tooLarge', `request too large: more than ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks, total).toString('utf8')),
    );
    req.on('error', reject);
    // A client that closes mid-body sends no 'end' (and not always an 'error'): settle instead of waiting forever.
    req.on('close', () => {
      if (!req.complete) reject(new Error('client closed the connection'));
    });
  });
}

/**
 * A node:http listener that runs JSON-RPC POSTs (`/` and `/v1/<key>`) through the gateway pipeline directly and hands
 * every other request to `fallback` (the Hono app's listener). Building Hono's Request, Context and Response per call
 * cost about as much CPU as answering a cached call (docs/decisions/0029-gateway-post-fast-path.md); the pipeline
 * function is the one the Hono routes call, so the answers are the same.
 */
export function rpcPostListener(answerPost: RpcPostHandler, fallback: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const key = req.method === 'POST' ? endpointKey(req.url ?? '/') : undefined;
    if (key === undefined) {
      void fallback(req, res);
      return;
    }
    let unread = false;
    let gone = false;
    res.once('close', () => {
      if (!res.writableFinished) gone = true;
    });
    req.once('close', () => {
      if (!req.complete) gone = true;
    });
    answerPost({
      clientGone: () => gone,
      headers: headerLookup(req),
      pathKey: key || undefined,
      remote: req.socket.remoteAddress,
      readBody: (max) =>
        readBody(req, max).catch((err: unknown) => {
          unread = true;
          throw err;
        }),
    }).then(
      (a) => {
        if (gone || res.destroyed) return;
        const headers: Record<string, string> = { ...a.headers, 'content-length': String(Buffer.byteLength(a.body)) };
        // The rest of an oversized body is never read: close the connection instead of parsing it as the next request.
        if (unread) headers.connection = 'close';
        res.writeHead(a.status, headers);
        res.end(a.body);
      },
      () => {
        // answerPost never throws; a failure here is a bug, still answered as JSON-RPC -32603.
        res.writeHead(500, { 'content-type': 'application/json', connection: 'close' });
        res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}');
      },
    );
  };
}
