/** Locates the shared conformance vectors (../shared/conformance beside the checkout, or XONE_CONFORMANCE_DIR). */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const CONFORMANCE_DIR = resolve(
  process.env.XONE_CONFORMANCE_DIR ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'conformance'),
);

if (!existsSync(CONFORMANCE_DIR)) {
  throw new Error(`conformance vectors not found at ${CONFORMANCE_DIR}; set XONE_CONFORMANCE_DIR`);
}

export function conformancePath(...parts: string[]): string {
  return join(CONFORMANCE_DIR, ...parts);
}

export function readJson<T = unknown>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** Every *.json file under a directory, recursively, sorted. */
export function jsonFilesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...jsonFilesUnder(p));
    else if (name.endsWith('.json')) out.push(p);
  }
  return out;
}
