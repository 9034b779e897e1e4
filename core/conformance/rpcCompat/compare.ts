/**
 * hive rpc-compat's comparison of a node's answer with the recorded one: structural JSON equality with object key
 * order ignored and numbers compared by value; wherever both sides hold an `error` object with a `message`, the
 * messages are dropped first (their text is client-specific; `code` and `data` still count). For `speconly` tests a
 * successful answer only has to have the recorded answer's shape (same keys, same JSON types).
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One difference, at a path like `result.transactions[0].hash`. */
export interface Difference {
  path: string;
  kind: 'changed' | 'missing' | 'unexpected';
  /** The node's value (absent for `missing`). */
  got?: unknown;
  /** The recorded value (absent for `unexpected`). */
  want?: unknown;
}

const isObject = (v: unknown): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

const child = (path: string, key: string | number): string =>
  typeof key === 'number'
    ? `${path}[${key}]`
    : /^[A-Za-z_$][\w$]*$/.test(key)
      ? path
        ? `${path}.${key}`
        : key
      : `${path}[${JSON.stringify(key)}]`;

/** Copies of both sides without `message` in every `error` object that both sides have at the same place. */
export function redactErrorMessages(got: unknown, want: unknown): { got: unknown; want: unknown; redacted: boolean } {
  let redacted = false;
  const walk = (g: unknown, w: unknown): [unknown, unknown] => {
    if (isObject(w) && isObject(g)) {
      const gOut: Record<string, unknown> = { ...g };
      const wOut: Record<string, unknown> = { ...w };
      for (const key of Object.keys(w)) {
        if (!(key in g)) continue;
        const gv = g[key];
        const wv = w[key];
        if (key === 'error' && isObject(gv) && isObject(wv) && 'message' in gv && 'message' in wv) {
          const { message: _g, ...gRest } = gv;
          const { message: _w, ...wRest } = wv;
          gOut[key] = gRest;
          wOut[key] = wRest;
          redacted = true;
        } else {
          [gOut[key], wOut[key]] = walk(gv, wv);
        }
      }
      return [gOut, wOut];
    }
    if (Array.isArray(w) && Array.isArray(g)) {
      const gOut = [...g];
      const wOut = [...w];
      for (let i = 0; i < Math.min(g.length, w.length); i++) [gOut[i], wOut[i]] = walk(g[i], w[i]);
      return [gOut, wOut];
    }
    return [g, w];
  };
  const [g, w] = walk(got, want);
  return { got: g, want: w, redacted };
}

/**
 * Fields the spec added after the recorded suites were made (execution-apis#639, geth 1.16: `blockTimestamp` in
 * receipts and logs). A recorded answer without one is older than the field, so its presence in ours is not a
 * difference; a recorded answer that has it is compared as usual.
 */
const NEWER_THAN_FIXTURES: ReadonlySet<string> = new Set(['blockTimestamp']);

/** Every difference between the node's value and the recorded one (empty = equal). */
export function diffJson(got: unknown, want: unknown, path = ''): Difference[] {
  if (typeof got === 'number' && typeof want === 'number')
    return got === want || (Number.isNaN(got) && Number.isNaN(want)) ? [] : [{ path, kind: 'changed', got, want }];
  if (isObject(got) && isObject(want)) {
    const out: Difference[] = [];
    for (const key of Object.keys(want)) {
      if (!(key in got)) out.push({ path: child(path, key), kind: 'missing', want: want[key] });
      else out.push(...diffJson(got[key], want[key], child(path, key)));
    }
    for (const key of Object.keys(got))
      if (!(key in want) && !NEWER_THAN_FIXTURES.has(key)) out.push({ path: child(path, key), kind: 'unexpected', got: got[key] });
    return out;
  }
  if (Array.isArray(got) && Array.isArray(want)) {
    const out: Difference[] = [];
    for (let i = 0; i < Math.max(got.length, want.length); i++) {
      if (i >= got.length) out.push({ path: child(path, i), kind: 'missing', want: want[i] });
      else if (i >= want.length) out.push({ path: child(path, i), kind: 'unexpected', got: got[i] });
      else out.push(...diffJson(got[i], want[i], child(path, i)));
    }
    return out;
  }
  return got === want ? [] : [{ path, kind: 'changed', got, want }];
}

/** gjson's types, which hive compares: true and false are different types, objects and arrays are both "JSON". */
const jsonType = (v: unknown): string =>
  v === null ? 'null' : typeof v === 'boolean' ? String(v) : typeof v === 'object' ? 'json' : typeof v;

/** hive's speconly check: the recorded answer's keys exist with the same JSON types, and no other keys (arrays: type only). */
export function diffShape(got: unknown, want: unknown, path = ''): Difference[] {
  if (!isObject(want) && !Array.isArray(want)) return [];
  if (Array.isArray(want)) return Array.isArray(got) ? [] : [{ path, kind: 'changed', got, want }];
  if (!isObject(got)) return [{ path, kind: 'changed', got, want }];
  const out: Difference[] = [];
  for (const key of Object.keys(want)) {
    const p = child(path, key);
    if (!(key in got)) out.push({ path: p, kind: 'missing', want: want[key] });
    else if (jsonType(got[key]) !== jsonType(want[key])) out.push({ path: p, kind: 'changed', got: got[key], want: want[key] });
    else out.push(...diffShape(got[key], want[key], p));
  }
  for (const key of Object.keys(got)) if (!(key in want)) out.push({ path: child(path, key), kind: 'unexpected', got: got[key] });
  return out;
}

/** The comparison of one round trip, as hive makes it. */
export function compareResponse(got: unknown, want: unknown, specOnly: boolean): { differences: Difference[]; redacted: boolean } {
  const hasError = isObject(got) && 'error' in got;
  if (specOnly && !hasError) return { differences: diffShape(got, want), redacted: false };
  const r = redactErrorMessages(got, want);
  return { differences: diffJson(r.got, r.want), redacted: r.redacted };
}

/** One line per difference: `path: got X, want Y` (values as compact JSON, long ones cut). */
export function formatDifferences(differences: readonly Difference[], maxValueChars = 200): string[] {
  const show = (v: unknown): string => {
    const s = JSON.stringify(v) ?? 'undefined';
    return s.length > maxValueChars ? `${s.slice(0, maxValueChars)}… (${s.length} chars)` : s;
  };
  return differences.map((d) => {
    const at = d.path || '(root)';
    if (d.kind === 'missing') return `${at}: missing, want ${show(d.want)}`;
    if (d.kind === 'unexpected') return `${at}: unexpected, got ${show(d.got)}`;
    return `${at}: got ${show(d.got)}, want ${show(d.want)}`;
  });
}
