/**
 * Streams the entries of a JSON file whose top level is an object (`{name: case, ...}`: the ethereum/tests layout)
 * without parsing them: one pass over the bytes in fixed-size chunks finds each entry's byte span and records the few
 * fields a runner selects on (a BlockchainTests case's `network`, the fork names under a GeneralStateTests `post`).
 * A runner parses only the entries it runs (`parseEntry` reads that span back), so memory is bounded by the largest
 * selected case, not by the file: upstream files reach hundreds of MB with every network's cases in them.
 *
 * The scan checks structure (brackets, strings, separators), not scalars; a parsed entry goes through JSON.parse.
 * Structural bytes are ASCII, so scanning UTF-8 bytes is exact.
 */
import { closeSync, openSync, readSync } from 'node:fs';

/** What to record about each entry while scanning past it. */
export interface ScanWants {
  /** Keys of the entry object whose string values are recorded (BlockchainTests: `network`). */
  strings?: readonly string[];
  /** Keys of the entry object whose value is an object: its keys are recorded with the length of each array value. */
  keysOf?: readonly string[];
}

/** One top-level entry: its name, where its value lies in the file, and what `ScanWants` asked for. */
export interface ScannedEntry {
  name: string;
  /** Byte offsets of the value in the file, end exclusive. */
  start: number;
  end: number;
  strings: Map<string, string>;
  /** `keysOf` key → (sub key → items of its array value; 0 for a value that is not an array). */
  keys: Map<string, Map<string, number>>;
}

/** A file that is not a well-formed JSON object at the byte named. */
export class JsonScanError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at byte ${offset}`);
    this.name = 'JsonScanError';
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Ends a bare scalar (number, true, false, null) without being part of it. */
function endsScalar(c: number): boolean {
  return c === 0x2c || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c);
}

function startsScalar(c: number): boolean {
  return c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e;
}

/** What the innermost container expects next. */
type Expect = 'keyOrClose' | 'key' | 'colon' | 'value' | 'valueOrClose' | 'commaOrClose';

interface Container {
  object: boolean;
  expect: Expect;
  /** The key of the member being read (objects, recorded down to depth 3), '' when not recorded. */
  key: string;
}

const quoted = (c: number): string => JSON.stringify(String.fromCharCode(c));

/**
 * The entries of the object in `file`, in file order. `chunkBytes` is the read size (tests use tiny ones to cross
 * every boundary). Throws JsonScanError on malformed structure, after yielding the entries before it.
 */
export function* scanEntries(file: string, wants: ScanWants = {}, chunkBytes = 4 << 20): Generator<ScannedEntry> {
  const wantStrings = new Set(wants.strings ?? []);
  const wantKeys = new Set(wants.keysOf ?? []);
  const fd = openSync(file, 'r');
  const chunk = Buffer.allocUnsafe(chunkBytes);
  const stack: Container[] = [];
  let base = 0; // file offset of chunk[0]
  let started = false;
  let done = false;
  // A string or scalar can continue into the next chunk.
  let inString = false;
  let stringIsKey = false;
  let carried = 0; // backslashes immediately before the scan position, from the previous chunk
  let capture: Buffer[] | undefined; // raw bytes (quotes included) of a string being recorded
  let opened = false; // a string opened in this chunk and not scanned yet (its quote was the chunk's last byte)
  let inScalar = false;
  let entry: ScannedEntry | undefined;

  /** A value begins at file offset `at` in the innermost container, with first byte `c`. */
  const valueBegins = (at: number, c: number): void => {
    const depth = stack.length;
    const top = stack[depth - 1] as Container;
    top.expect = 'commaOrClose';
    if (depth === 1) {
      entry = { name: top.key, start: at, end: -1, strings: new Map(), keys: new Map() };
      return;
    }
    if (entry === undefined) return;
    if (depth === 2 && c === OPEN_OBJECT && wantKeys.has(top.key)) entry.keys.set(top.key, new Map());
    if (depth === 3 && (stack[1] as Container).object) {
      const counts = entry.keys.get((stack[1] as Container).key);
      if (counts !== undefined && top.object) counts.set(top.key, 0);
    }
    if (depth === 4 && !top.object) {
      const counts = entry.keys.get((stack[1] as Container).key);
      const sub = (stack[2] as Container).key;
      if (counts !== undefined) counts.set(sub, (counts.get(sub) ?? 0) + 1);
    }
  };

  /** The value that occupied the innermost container's current slot ended before file offset `at`. */
  const valueEnded = (at: number): ScannedEntry | undefined => {
    if (stack.length !== 1 || entry === undefined) return undefined;
    const e = entry;
    e.end = at;
    entry = undefined;
    return e;
  };

  /** A finished string: raw bytes with quotes (undefined when not recorded). */
  const stringDone = (raw: Buffer | undefined, at: number): void => {
    if (raw === undefined) return;
    let text: string;
    try {
      text = JSON.parse(raw.toString('utf8')) as string;
    } catch {
      throw new JsonScanError('bad string', at);
    }
    const top = stack[stack.length - 1] as Container;
    if (stringIsKey) top.key = text;
    else entry?.strings.set(top.key, text);
  };

  try {
    for (;;) {
      const n = readSync(fd, chunk, 0, chunkBytes, base);
      if (n === 0) break;
      const view = n === chunkBytes ? chunk : chunk.subarray(0, n);
      let i = 0;
      let segStart = 0; // where the current string's bytes in this chunk begin
      while (i < n) {
        if (inString) {
          opened = false;
          // The closing quote is one preceded by an even run of backslashes (a run may begin in the previous chunk).
          let closed = -1;
          let from = i;
          for (;;) {
            const q = view.indexOf(QUOTE, from);
            const stop = q < 0 ? n : q;
            let k = stop - 1;
            while (k >= from && view[k] === BACKSLASH) k--;
            const run = stop - 1 - k + (k < from ? carried : 0);
            if (stop === n) {
              carried = run;
              break;
            }
            if (run % 2 === 0) {
              closed = stop;
              break;
            }
            carried = 0;
            from = stop + 1;
          }
          if (closed < 0) {
            capture?.push(Buffer.from(view.subarray(segStart, n)));
            i = n;
            continue;
          }
          capture?.push(Buffer.from(view.subarray(segStart, closed + 1)));
          inString = false;
          carried = 0;
          const raw = capture === undefined ? undefined : Buffer.concat(capture);
          capture = undefined;
          stringDone(raw, base + closed);
          i = closed + 1;
          if (stringIsKey) (stack[stack.length - 1] as Container).expect = 'colon';
          else {
            const e = valueEnded(base + i);
            if (e) yield e;
          }
          continue;
        }
        if (inScalar) {
          while (i < n && !endsScalar(view[i] as number)) i++;
          if (i === n) continue;
          inScalar = false;
          const e = valueEnded(base + i);
          if (e) yield e;
          continue;
        }
        const c = view[i] as number;
        if (isSpace(c)) {
          i++;
          continue;
        }
        const at = base + i;
        if (done) throw new JsonScanError('content after the top-level object', at);
        const top = stack[stack.length - 1];
        if (top === undefined) {
          if (c !== OPEN_OBJECT || started) throw new JsonScanError('the file is not a JSON object', at);
          started = true;
          stack.push({ object: true, expect: 'keyOrClose', key: '' });
          i++;
          continue;
        }
        const closes = (top.object && c === CLOSE_OBJECT) || (!top.object && c === CLOSE_ARRAY);
        if (closes && (top.expect === 'keyOrClose' || top.expect === 'valueOrClose' || top.expect === 'commaOrClose')) {
          stack.pop();
          i++;
          if (stack.length === 0) {
            done = true;
            continue;
          }
          const e = valueEnded(base + i);
          if (e) yield e;
          continue;
        }
        switch (top.expect) {
          case 'keyOrClose':
          case 'key':
            if (c !== QUOTE) throw new JsonScanError(`expected a key, found ${quoted(c)}`, at);
            inString = true;
            opened = true;
            stringIsKey = true;
            carried = 0;
            segStart = i;
            // Keys are recorded down to the entry's fields and the keys of their objects (`keysOf`).
            capture = stack.length <= 3 ? [] : undefined;
            top.key = '';
            i++;
            continue;
          case 'colon':
            if (c !== 0x3a) throw new JsonScanError(`expected ":", found ${quoted(c)}`, at);
            top.expect = 'value';
            i++;
            continue;
          case 'commaOrClose':
            if (c !== 0x2c) throw new JsonScanError(`expected "," or a closing bracket, found ${quoted(c)}`, at);
            top.expect = top.object ? 'key' : 'value';
            i++;
            continue;
          case 'value':
          case 'valueOrClose':
            break;
        }
        valueBegins(at, c);
        if (c === OPEN_OBJECT) {
          stack.push({ object: true, expect: 'keyOrClose', key: '' });
          i++;
        } else if (c === OPEN_ARRAY) {
          stack.push({ object: false, expect: 'valueOrClose', key: '' });
          i++;
        } else if (c === QUOTE) {
          inString = true;
          opened = true;
          stringIsKey = false;
          carried = 0;
          segStart = i;
          capture = stack.length === 2 && wantStrings.has(top.key) && entry !== undefined ? [] : undefined;
          i++;
        } else if (startsScalar(c)) {
          inScalar = true;
          i++;
        } else {
          throw new JsonScanError(`unexpected ${quoted(c)}`, at);
        }
      }
      if (opened) capture?.push(Buffer.from(view.subarray(segStart, n)));
      opened = false;
      base += n;
    }
    if (!done) throw new JsonScanError(started ? 'the file ends inside the top-level object' : 'the file is not a JSON object', base);
  } finally {
    closeSync(fd);
  }
}

/** Reads and parses the value of `entry` (found by `scanEntries` in the same, unchanged file). */
export function parseEntry(file: string, entry: ScannedEntry): unknown {
  const fd = openSync(file, 'r');
  try {
    const bytes = Buffer.allocUnsafe(entry.end - entry.start);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, entry.start + got);
      if (n === 0) throw new JsonScanError('the file shrank while it was read', entry.start + got);
      got += n;
    }
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } finally {
    closeSync(fd);
  }
}
