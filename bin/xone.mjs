#!/usr/bin/env node
// The `xone` command. It runs the esbuild bundle in dist/ (made by `npm ci` through the `prepare` script) when that
// is current, and otherwise the TypeScript sources through tsx's loader, which compiles them on first use
// (docs/decisions/0002-typescript-at-runtime.md, 0022-bundled-cli.md). Worker threads follow the same choice: the
// bundle's spawn sites point at bundled workers.
import { freshBuild } from './freshBuild.mjs';

const built = freshBuild('xone.mjs');
let main;
if (built.url) {
  ({ main } = await import(built.url));
} else {
  if (process.stderr.isTTY && !built.stale.startsWith('XONE_FROM_SOURCE')) {
    process.stderr.write(`xone: running the TypeScript sources (slower start): ${built.stale}; \`npm run build\` refreshes dist/\n`);
  }
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../core/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
