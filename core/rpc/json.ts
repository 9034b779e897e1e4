/**
 * JSON plumbing of the RPC hot path: results that are already JSON text (cached block and receipt encodings) are
 * spliced into the response without being parsed or re-stringified, and request text is checked for nesting depth
 * before JSON.parse so a hostile body cannot make later code recurse without bound.
 */
import { type WireError } from './errors.ts';
import { RawId } from './rawIds.ts';

/** A result that is already serialized JSON text: written to the wire as is. */
export class RawJson {
  private bytes: Buffer | undefined;

  constructor(readonly json: string) {}

  /**
   * The text as UTF-8, encoded once per instance: the encoding cache hands out the same instance for a cached block
   * or receipt list, so a 1.4 MB answer is not re-encoded (10-19 ms on a loaded host) on every request.
   */
  utf8(): Buffer {
    this.bytes ??= Buffer.from(this.json, 'utf8');
    return this.bytes;
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
