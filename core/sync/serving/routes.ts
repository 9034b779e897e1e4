/**
 * The block-serving routes of the `/xone/v1/` protocol (docs/sync.md), as a Hono sub-app the node mounts on its RPC
 * port: `app.route('/xone/v1', createSyncRoutes({ source }))`. Everything served is durable: a follower never
 * sees a block that a crash of this node could take back.
 */
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { XoneError } from '../../errors.ts';
import { bytesToHex } from '../../primitives/hex.ts';
import { HEADS_KEEPALIVE_MS, MAX_BLOCKS_PER_REQUEST, MAX_BLOCKS_RESPONSE_BYTES, MAX_TX_BYTES } from '../options.ts';
import { headToJson, statusToJson, type SyncHead } from '../wire.ts';
import type { BlockServingSource } from './interface.ts';

/** Options of the routes; the limits default to the protocol's (options.ts). */
export interface SyncRoutesOptions {
  source: BlockServingSource;
  maxBlocks?: number;
  maxBytes?: number;
  keepAliveMs?: number;
}

/** Content type of a `/blocks` answer: block RLPs concatenated (the `geth export` / chain.rlp format). */
export const BLOCKS_CONTENT_TYPE = 'application/x-xone-blocks';

function badRequest(c: Context, message: string): Response {
  return c.json({ error: { code: 'SYNC_BAD_REQUEST', message } }, 400);
}

function parseUint(v: string | undefined): number | undefined {
  if (v === undefined || !/^(0|[1-9][0-9]{0,15})$/.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Builds the sub-app serving `/status`, `/blocks`, `/heads` and `/tx`. */
export function createSyncRoutes({
  source,
  maxBlocks = MAX_BLOCKS_PER_REQUEST,
  maxBytes = MAX_BLOCKS_RESPONSE_BYTES,
  keepAliveMs = HEADS_KEEPALIVE_MS,
}: SyncRoutesOptions): Hono {
  const app = new Hono();
  // A failure behind a route (a corrupt record in our own store, a closed store) answers JSON like every other error
  // here, with its code (STORE_SEGMENT_CORRUPT, ...): Hono's default is a plain-text 500 a follower cannot read.
  app.onError((err, c) => c.json({ error: { code: err instanceof XoneError ? err.code : 'SYNC_INTERNAL', message: err.message } }, 500));

  app.get('/status', (c) => c.json(statusToJson(source.status())));

  app.get('/blocks', (c) => {
    const from = parseUint(c.req.query('from'));
    if (from === undefined) return badRequest(c, 'from: expected a decimal block number');
    const countParam = c.req.query('count');
    const count = countParam === undefined ? maxBlocks : parseUint(countParam);
    if (count === undefined || count < 1 || count > maxBlocks) return badRequest(c, `count: expected 1-${maxBlocks}`);
    const parts: Uint8Array[] = [];
    let bytes = 0;
    const read = (): void => {
      const head = Number(source.status().head.number);
      for (let n = from; n < from + count && n <= head; n++) {
        const rlp = source.blockRlp(BigInt(n));
        if (rlp === undefined) break;
        // The byte bound never cuts a block in half and never refuses the first one (a follower must progress).
        if (parts.length > 0 && bytes + rlp.length > maxBytes) break;
        parts.push(rlp);
        bytes += rlp.length;
      }
    };
    if (source.snapshot) source.snapshot(read);
    else read();
    const body = new Uint8Array(bytes);
    let at = 0;
    for (const p of parts) {
      body.set(p, at);
      at += p.length;
    }
    return c.body(body, 200, { 'content-type': BLOCKS_CONTENT_TYPE, 'x-xone-from': String(from), 'x-xone-count': String(parts.length) });
  });

  app.get('/heads', (c) =>
    streamSSE(c, async (stream) => {
      // Coalesce: a slow reader gets the latest head, never an unbounded queue of old ones.
      let latest: SyncHead | undefined = source.status().head;
      let wake: (() => void) | undefined;
      const unsubscribe = source.subscribeHeads((h) => {
        latest = h;
        wake?.();
      });
      stream.onAbort(() => wake?.());
      try {
        while (!stream.aborted && !stream.closed) {
          if (latest) {
            const h = latest;
            latest = undefined;
            await stream.writeSSE({ event: 'head', data: JSON.stringify(headToJson(h)), id: String(h.number) });
            continue;
          }
          const reason = await new Promise<'wake' | 'keepalive'>((resolve) => {
            const t = setTimeout(() => resolve('keepalive'), keepAliveMs);
            wake = () => {
              clearTimeout(t);
              resolve('wake');
            };
          });
          wake = undefined;
          if (reason === 'keepalive' && !stream.aborted) await stream.write(': keepalive\n\n');
        }
      } finally {
        unsubscribe();
      }
    }),
  );

  app.post('/tx', async (c) => {
    const declared = Number(c.req.header('content-length') ?? '0');
    if (declared > MAX_TX_BYTES) return c.json({ error: { code: 'SYNC_BAD_REQUEST', message: 'oversized data' } }, 413);
    const raw = new Uint8Array(await c.req.arrayBuffer());
    if (raw.length > MAX_TX_BYTES) return c.json({ error: { code: 'SYNC_BAD_REQUEST', message: 'oversized data' } }, 413);
    if (raw.length === 0) return badRequest(c, 'empty body: expected the raw transaction bytes');
    try {
      const hash = await source.submitTx(raw);
      return c.json({ hash: bytesToHex(hash) });
    } catch (err) {
      // The pool's refusal text goes back verbatim so the follower's eth_sendRawTransaction answers like geth.
      return c.json({ error: { code: 'SYNC_TX_REFUSED', message: err instanceof Error ? err.message : String(err) } }, 400);
    }
  });

  return app;
}
