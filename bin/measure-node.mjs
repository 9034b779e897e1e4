#!/usr/bin/env node
// The `measure-node` command (infra/measureNode, docs/measure-node.md): TypeScript run through tsx's loader, like `xone`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../infra/measureNode/cli.ts');
process.exitCode = await main(process.argv.slice(2));
