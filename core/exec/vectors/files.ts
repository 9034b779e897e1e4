/**
 * Collects the JSON files named on a vector runner's command line: files as given, directories walked recursively in
 * sorted order (so output is stable between runs).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every `.json` file under the given paths. Throws when a path does not exist. */
export function jsonFilesIn(paths: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (p: string): void => {
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) walk(join(p, name));
    } else if (p.endsWith('.json')) {
      out.push(p);
    }
  };
  for (const p of paths) walk(p);
  return out;
}
