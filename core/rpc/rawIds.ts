/**
 * Request ids echoed exactly as sent. JSON.parse turns `123456789012345678901234567890` into a double
 * (1.2345678901234568e+29) and `1.0` into 1; geth keeps an id as raw JSON and sends those bytes back. Here the text of
 * each numeric id is found with one scan of the request and kept as a RawId, which the encoder writes unchanged.
 * Strings are skipped with indexOf, so the scan of a large body (long hex strings) costs little.
 */

/** A numeric id as the client wrote it. */
export class RawId {
  constructor(readonly json: string) {}
}

const QUOTE = 34;
const BACKSLASH = 92;

/** Index just past the string starting at `i` (a quote). */
function skipString(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q < 0) return text.length;
    let slashes = 0;
    for (let k = q - 1; k > i && text.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    j = q + 1;
  }
}

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;
const isNumberChar = (c: number): boolean => (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69;

/**
 * The raw text of the numeric "id" of the request object (`batch` false: one entry) or of each element of a batch
 * (index = element position). Valid JSON only (the caller parsed it already). Duplicate keys: the last one, as
 * JSON.parse.
 */
export function rawNumericIds(text: string, batch: boolean): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  const target = batch ? 2 : 1;
  let depth = 0;
  let element = 0;
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = skipString(text, i);
      if (depth === target) {
        let j = end;
        while (j < text.length && isSpace(text.charCodeAt(j))) j++;
        if (text.charCodeAt(j) === 58 /* : */) {
          const key = text.slice(i, end);
          if (key === '"id"' || (key.includes('\\') && JSON.parse(key) === 'id')) {
            j++;
            while (j < text.length && isSpace(text.charCodeAt(j))) j++;
            let k = j;
            while (k < text.length && isNumberChar(text.charCodeAt(k))) k++;
            out[element] = k > j ? text.slice(j, k) : undefined;
            i = k > j ? k : j;
            continue;
          }
        }
      }
      i = end;
      continue;
    }
    if (c === 91 /* [ */ || c === 123 /* { */) depth++;
    else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
    else if (c === 44 /* , */ && batch && depth === 1) element++;
    i++;
  }
  return out;
}

/** Replaces numeric ids of parsed messages whose text differs from the number's own rendering with RawIds. */
export function keepRawIds(text: string, msg: unknown): void {
  const batch = Array.isArray(msg);
  const messages = batch ? (msg as unknown[]) : [msg];
  if (!messages.some((m) => typeof (m as { id?: unknown } | null)?.id === 'number')) return;
  const raws = rawNumericIds(text, batch);
  messages.forEach((m, i) => {
    const o = m as Record<string, unknown> | null;
    const raw = raws[i];
    // A number too large for a double (1e400) stays what JSON.parse made of it: not a valid id (-32600).
    if (o === null || typeof o !== 'object' || typeof o.id !== 'number' || !Number.isFinite(o.id) || raw === undefined) return;
    // The scan agrees with JSON.parse on the value; only a different spelling needs keeping.
    if (raw !== JSON.stringify(o.id) && Number(raw) === o.id) o.id = new RawId(raw);
  });
}
