/** Reads a fetch Response body with a byte bound, so a peer cannot make us buffer more than we asked for. */
import { SyncError } from '../errors.ts';

/** The whole body, or SYNC_PEER_TOO_LARGE as soon as it passes `maxBytes` (the rest is not read). */
export async function readLimited(res: Response, maxBytes: number, peer: string): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? 'NaN');
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new SyncError('SYNC_PEER_TOO_LARGE', `peer ${peer}: response of ${declared} bytes exceeds the ${maxBytes}-byte bound`, {
      peer,
      declared,
      maxBytes,
    });
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel();
      throw new SyncError('SYNC_PEER_TOO_LARGE', `peer ${peer}: response passed the ${maxBytes}-byte bound`, { peer, maxBytes });
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
