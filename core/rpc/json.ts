/**
 * JSON plumbing of the RPC hot path: results that are already JSON text (cached block and receipt encodings) are
 * spliced into the response without being parsed or re-stringified, and request text is checked for nesting depth
 * before JSON.parse so a hostile body cannot make later code recurse without bound.
 */
import { type WireError } from './errors.ts';
import { RawId } from './rawIds.ts';

/** Spare bytes before and after the JSON in a framed answer (framedUtf8): room for the response's head and end. */
const FRAME_HEAD = 256;
const FRAME_TAIL = 1;

/**
 * JSON text as UTF-8 with spare room (spaces) before and after it, for RawJson.framed: a worker encodes a large
 * answer so (eth_getLogs), and the main thread writes the response around it in place. On the main loop, encoding
 * and copying a whole-chain eth_getLogs answer (3.6 MB) held it 10-21 ms at a time under bench:rpc-isolation's flood.
 */
export function framedUtf8(json: string): Uint8Array {
  const n = Buffer.byteLength(json);
  // Its own ArrayBuffer (not Node's shared pool), so it can be transferred to another thread.
  const frame = Buffer.allocUnsafeSlow(FRAME_HEAD + n + FRAME_TAIL);
  frame.fill(0x20, 0, FRAME_HEAD);
  frame.write(json, FRAME_HEAD, 'utf8');
  frame.fill(0x20, FRAME_HEAD + n);
  return frame;
}

/** A result that is already serialized JSON text: written to the wire as is. */
export class RawJson {
  private bytes: Buffer | undefined;
  private text: string | undefined;
  /** The bytes are a frame of framedUtf8 (the JSON between spare room), and whether a response was written into it. */
  private framedBytes = false;
  private frameUsed = false;

  constructor(json: string) {
    this.text = json;
  }

  /** A result encoded by framedUtf8 (as UTF-8 bytes, off the main thread); its text is decoded only if asked for. */
  static framed(frame: Uint8Array): RawJson {
    const raw = new RawJson('');
    raw.text = undefined;
    raw.bytes = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
    raw.framedBytes = true;
    return raw;
  }

  /** The JSON text. */
  get json(): string {
    this.text ??= this.utf8().toString('utf8');
    return this.text;
  }

  /** Its size: characters of the text, or bytes of a framed result (the same for ASCII JSON). */
  get size(): number {
    return this.text !== undefined ? this.text.length : this.utf8().length;
  }

  /**
   * The text as UTF-8, encoded once per instance: the encoding cache hands out the same instance for a cached block
   * or receipt list, so a 1.4 MB answer is not re-encoded (10-19 ms on a loaded host) on every request.
   */
  utf8(): Buffer {
    if (this.framedBytes) {
      const f = this.bytes as Buffer;
      return f.subarray(FRAME_HEAD, f.length - FRAME_TAIL);
    }
    this.bytes ??= Buffer.from(this.text as string, 'utf8');
    return this.bytes;
  }

  /**
   * `head` + the JSON + `tail` as one buffer: written into a framed result's spare room the first time (no copy of
   * the JSON; a later answer may not overwrite a head still being sent), else copied together.
   */
  body(head: string, tail: Buffer): Buffer {
    const headBytes = Buffer.byteLength(head);
    if (this.framedBytes && !this.frameUsed && headBytes <= FRAME_HEAD && tail.length <= FRAME_TAIL) {
      this.frameUsed = true;
      const f = this.bytes as Buffer;
      const start = FRAME_HEAD - headBytes;
      f.write(head, start, 'utf8');
      tail.copy(f, f.length - FRAME_TAIL);
      return f.subarray(start, f.length - FRAME_TAIL + tail.length);
    }
    return Buffer.concat([Buffer.from(head, 'utf8'), this.utf8(), tail]);
  }
}

/** JSON text of a result value; RawJson anywhere inside is spliced in unchanged. */
export function encodeJson(value: unknown): string {
  if (value instanceof RawJson) return value.json;
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (!containsRaw(value, 0)) return JSON.stringify(value);
  if (Array.isArray(value)) return '[' + value.map(encodeJson).join(',') + ']';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value)) if (v !== undefined) parts.push(JSON.stringify(k) + ':' + encodeJson(v));
  return '{' + parts.join(',') + '}';
}

function containsRaw(value: object, depth: number): boolean {
  if (value instanceof RawJson) return true;
  if (depth > 3) return false; // results put RawJson only near the top (arrays of blocks/receipts)
  for (const v of Array.isArray(value) ? value : Object.values(value))
    if (v !== null && typeof v === 'object' && containsRaw(v, depth + 1)) return true;
  return false;
}

/** JSON text of an id as received (number, string or null; a RawId as the client spelled it). */
export const encodeId = (id: unknown): string => (id === undefined ? 'null' : id instanceof RawId ? id.json : JSON.stringify(id));

/** A success response; `resultJson` is JSON text. */
export const resultResponse = (id: unknown, resultJson: string): string =>
  '{"jsonrpc":"2.0","id":' + encodeId(id) + ',"result":' + resultJson + '}';

/** An error response. */
export const errorResponse = (id: unknown, error: WireError): string =>
  '{"jsonrpc":"2.0","id":' + encodeId(id) + ',"error":' + JSON.stringify(error) + '}';

/**
 * Maximum nesting depth of arrays/objects in JSON text, stopping early once `limit` is passed. Linear, allocation
 * free; strings are skipped with their escapes so brackets inside them do not count.
 */
export function exceedsDepth(text: string, limit: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > limit) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}
