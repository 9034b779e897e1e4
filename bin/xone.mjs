#!/usr/bin/env node
// The `xone` command. The sources are TypeScript; tsx's loader compiles them on first use and caches the result,
// so `npx xone` works straight after `npm ci` without a build step (docs/decisions/0002-typescript-at-runtime.md).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../core/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
