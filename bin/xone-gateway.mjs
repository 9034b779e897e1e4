#!/usr/bin/env node
// The `xone-gateway` command: runs the edge JSON-RPC gateway or manages its API keys (gateway/adapters/node/cli.ts).
// Like bin/xone.mjs it runs the esbuild bundle in dist/ while that is current (checked against the gateway's own
// sources), and otherwise the TypeScript sources through tsx's loader, so it works straight after `npm ci` and in an
// edited checkout. The bundle is also the faster hot path: tsx keeps every function's name with a helper call per
// closure created, a few µs per request on the gateway (docs/decisions/0045-gateway-bundle.md).
import { freshBuild } from './freshBuild.mjs';

const built = freshBuild('xone-gateway.mjs');
let main;
if (built.url) {
  ({ main } = await import(built.url));
} else {
  if (process.stderr.isTTY && !built.stale.startsWith('XONE_FROM_SOURCE')) {
    process.stderr.write(`xone-gateway: running the TypeScript sources: ${built.stale}; \`npm run build\` refreshes dist/\n`);
  }
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../gateway/adapters/node/cli.ts'));
}
process.exitCode = await main(process.argv.slice(2));
