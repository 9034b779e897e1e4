#!/usr/bin/env node
// Runs a TypeScript entry file through tsx's loader: `node bin/run-ts.mjs path/to/file.ts [args...]`.
// Used by the npm bench/soak scripts so they need no global tools.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

register();
const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: run-ts.mjs FILE.ts [args...]');
  process.exit(2);
}
process.argv = [process.argv[0], resolve(entry), ...rest];
await import(pathToFileURL(resolve(entry)).href);
