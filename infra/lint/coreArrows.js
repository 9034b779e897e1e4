// The allowed import arrows between the folders of core/ (docs/architecture.md, "Folders and arrows"). A folder may
// import only the folders listed for it; `core/errors.ts` and `core/version.ts` are open to all. eslint.config.js
// enforces the table with the `xone/core-arrows` rule below, and test/architecture.test.ts keeps the picture in
// docs/architecture.md equal to it. Add a folder or an arrow here, with a reason, before the import that needs it.
import { dirname, relative, resolve, sep } from 'node:path';

const BASE = ['errors', 'version'];

/** folder -> the folders it may import (besides errors.ts and version.ts). Ordered from the bottom layer up. */
export const CORE_ARROWS = {
  primitives: [],
  log: [],
  metrics: [],
  trie: ['primitives'],
  chain: ['primitives', 'trie'],
  store: ['primitives'],
  rpc: ['primitives'],
  keystore: ['primitives'],
  state: ['primitives', 'trie', 'store'],
  consensus: ['primitives', 'chain'],
  txpool: ['primitives', 'chain'],
  exec: ['primitives', 'chain', 'state', 'store'],
  runtime: ['primitives', 'log', 'metrics'],
  ethstats: ['runtime'],
  sync: ['primitives', 'log', 'store'],
  chainService: ['primitives', 'chain', 'consensus', 'exec', 'rpc', 'runtime', 'state', 'store'],
  rpcBackend: ['primitives', 'trie', 'chain', 'consensus', 'exec', 'rpc', 'state', 'store', 'txpool'],
  // The RPC execution pool: runs rpcBackend's views over its own store handles in worker threads (runtime).
  rpcPool: ['primitives', 'log', 'metrics', 'chain', 'exec', 'rpc', 'runtime', 'store', 'rpcBackend'],
  node: [
    'primitives',
    'log',
    'metrics',
    'chain',
    'consensus',
    'exec',
    'state',
    'store',
    'txpool',
    'rpc',
    'runtime',
    'ethstats',
    'sync',
    'chainService',
    'rpcBackend',
    'rpcPool',
  ],
  conformance: ['primitives', 'chain', 'exec', 'store', 'rpc', 'txpool', 'chainService', 'rpcBackend', 'rpcPool'],
  cli: ['primitives', 'log', 'chain', 'exec', 'store', 'rpc', 'keystore', 'chainService', 'rpcPool', 'node', 'conformance'],
  bench: [
    'primitives',
    'log',
    'metrics',
    'trie',
    'chain',
    'store',
    'state',
    'exec',
    'txpool',
    'rpc',
    'runtime',
    'sync',
    'chainService',
    'rpcBackend',
    'rpcPool',
    'node',
  ],
};

/** The core folder a path lies in (`core/exec/call/x.ts` -> `exec`; `core/errors.ts` -> `errors`), or undefined. */
export function coreFolder(root, file) {
  const rel = relative(root, file).split(sep);
  if (rel[0] !== 'core' || rel.length < 2) return undefined;
  return rel.length === 2 ? rel[1].replace(/\.ts$/, '') : rel[1];
}

/** An ESLint rule: every relative import from core/<a>/ into core/<b>/ must be an arrow of CORE_ARROWS. */
export function coreArrowsRule(root) {
  return {
    meta: {
      type: 'problem',
      schema: [],
      messages: { arrow: '{{from}} may not import {{to}} (allowed: {{allowed}}; infra/lint/coreArrows.js)' },
    },
    create(context) {
      const from = coreFolder(root, context.filename);
      if (!from) return {};
      const allowed = CORE_ARROWS[from];
      const check = (node, spec) => {
        if (typeof spec !== 'string' || !spec.startsWith('.')) return;
        const to = coreFolder(root, resolve(dirname(context.filename), spec));
        if (!to || to === from || BASE.includes(to)) return;
        if (allowed === undefined || !allowed.includes(to)) {
          context.report({
            node,
            messageId: 'arrow',
            data: { from: `core/${from}`, to: `core/${to}`, allowed: (allowed ?? ['(folder not in the table)']).join(', ') },
          });
        }
      };
      return {
        ImportDeclaration: (n) => check(n.source, n.source.value),
        ExportNamedDeclaration: (n) => n.source && check(n.source, n.source.value),
        ExportAllDeclaration: (n) => check(n.source, n.source.value),
        ImportExpression: (n) => n.source.type === 'Literal' && check(n.source, n.source.value),
      };
    },
  };
}
