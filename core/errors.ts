/**
 * The one base class for errors the core raises on purpose. `code` is a stable, typed identifier that callers and
 * tests match on; `meta` carries the values that explain it (both sides of a mismatch, an offset, a field name) and
 * survives `postMessage` through `toObject()`.
 */
export class XoneError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly meta: Readonly<Record<string, unknown>>;

  constructor(code: Code, message: string, meta: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.meta = meta;
  }

  /** A plain object that can cross a worker boundary or be logged as JSON. */
  toObject(): { name: string; code: Code; message: string; meta: Readonly<Record<string, unknown>> } {
    return { name: this.name, code: this.code, message: this.message, meta: this.meta };
  }
}
