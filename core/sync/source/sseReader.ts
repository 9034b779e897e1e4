/**
 * A minimal reader of Server-Sent Events (only what `/xone/v1/heads` sends: `event`, `data`, comments), bounded in
 * line size, with an idle deadline: the server sends a keep-alive comment every few seconds, so silence means a
 * dead stream.
 */

/** One event. */
export interface SseEvent {
  event: string;
  data: string;
}

/** Reads events until the stream ends; throws on idle timeout, oversize events or a read error. */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  onEvent: (e: SseEvent) => void,
  opts: { idleMs: number; maxEventBytes: number },
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const idle = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no data for ${opts.idleMs} ms`)), opts.idleMs);
    });
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await Promise.race([reader.read(), idle]);
    } catch (err) {
      await reader.cancel().catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
    }
    if (chunk.done) return;
    buf += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) onEvent({ event, data: data.join('\n') });
    }
    if (buf.length > opts.maxEventBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`event larger than ${opts.maxEventBytes} bytes`);
    }
  }
}
