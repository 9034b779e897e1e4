/** Byte comparison for large payloads: vitest's deep equality walks typed arrays element by element (slow at 56 KB). */
import { expect } from 'vitest';

/** Asserts `actual` holds exactly the bytes of `expected`, printing lengths and the first differing offset on failure. */
export function expectSameBytes(actual: Uint8Array | undefined, expected: Uint8Array, what = 'bytes'): void {
  expect(actual, `${what}: missing`).toBeDefined();
  const a = Buffer.from((actual as Uint8Array).buffer, (actual as Uint8Array).byteOffset, (actual as Uint8Array).byteLength);
  const b = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
  if (a.equals(b)) return;
  let i = 0;
  while (i < Math.min(a.length, b.length) && a[i] === b[i]) i++;
  expect.fail(`${what}: ${a.length} bytes vs ${b.length} expected, first difference at offset ${i}`);
}
