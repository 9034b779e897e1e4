/** Fresh datadirs for store tests, on the repo's disk (.xone/test-store), removed after each test file. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..', '.xone', 'test-store');

/** Returns a function making new empty datadirs; all are removed when the file's tests end. */
export function datadirFactory(): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    mkdirSync(ROOT, { recursive: true });
    const d = mkdtempSync(join(ROOT, 'dd-'));
    made.push(d);
    return d;
  };
}
