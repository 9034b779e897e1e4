#!/usr/bin/env node
// The `xone-gateway` command: runs the edge JSON-RPC gateway or manages its API keys (gateway/adapters/node/cli.ts).
// Same tsx loader as bin/xone.mjs, so it works straight after `npm ci`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../gateway/adapters/node/cli.ts');
process.exitCode = await main(process.argv.slice(2));
