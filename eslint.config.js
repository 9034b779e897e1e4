// Lint rules, including the ones that keep the architecture (docs/decisions/0004-lint-architecture-rules.md):
// core never imports gateway/workers; gateway never imports core and, outside its Node adapter, no Node built-in;
// workers import only gateway (and npm packages), never core, infra or Node built-ins; no SQL outside core/store and
// core/state/store (only they may import better-sqlite3 or the store's connection accessor).
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';
import { coreArrowsRule } from './infra/lint/coreArrows.js';

const nodeBuiltins = [...builtinModules.filter((m) => !m.startsWith('_')), 'node:*'];
// The gateway's benchmarks (Node-only tooling) live in gateway/bench/; no product file may import them.
const benchPattern = { group: ['**/bench/**'], message: 'product code never imports the benchmarks (gateway/bench/ is tooling).' };
const coreApartPattern = { group: ['**/gateway/**', '**/workers/**'], message: 'core never imports gateway or workers.' };
const sqlPattern = {
  group: ['better-sqlite3', '**/store/connection.ts'],
  message: 'SQL lives in core/store and core/state/store: use their functions.',
};
const nodeBuiltinPattern = {
  group: nodeBuiltins,
  message: 'Web-standard code only: Node built-ins belong in the Node adapter (gateway/adapters/node/).',
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '**/.wrangler/**', '.xone/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.property.name='only']", message: 'no .only in committed tests' },
      ],
    },
  },
  {
    files: ['core/**/*.ts'],
    plugins: { xone: { rules: { 'core-arrows': coreArrowsRule(import.meta.dirname) } } },
    rules: {
      'xone/core-arrows': 'error',
      'no-restricted-imports': ['error', { patterns: [coreApartPattern, sqlPattern] }],
    },
  },
  {
    // The two SQL folders, and the store benchmark that times a bare SQLite commit as its peer.
    files: ['core/store/**/*.ts', 'core/state/store/**/*.ts', 'core/bench/store/raw.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [coreApartPattern] }] },
  },
  {
    files: ['gateway/**/*.ts'],
    ignores: ['gateway/adapters/node/**', 'gateway/bench/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/core/**', '**/workers/**', '**/infra/**'], message: 'gateway never imports core, workers or infra.' },
            nodeBuiltinPattern,
            benchPattern,
          ],
        },
      ],
    },
  },
  {
    files: ['gateway/adapters/node/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/core/**', '**/workers/**', '**/infra/**'], message: 'gateway never imports core, workers or infra.' },
            benchPattern,
          ],
        },
      ],
    },
  },
  {
    // Node-only tooling: Node built-ins allowed; still never core, workers, infra or the tests' support code.
    files: ['gateway/bench/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/core/**', '**/workers/**', '**/infra/**', '**/test/**'],
              message: 'the gateway bench imports only gateway code.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['workers/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/core/**', '**/infra/**'], message: 'workers import only gateway.' }, nodeBuiltinPattern] },
      ],
    },
  },
);
