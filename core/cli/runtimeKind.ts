/**
 * Which form of the code is running, for the start-up log line: the esbuild bundle in dist/ (bin/build.mjs) or the
 * TypeScript sources through tsx (docs/decisions/0022-bundled-cli.md). Inside the bundle `import.meta.url` names a
 * dist/ .mjs file; from the sources it names this .ts file.
 */
export const RUNTIME_KIND: 'bundle' | 'sources' = import.meta.url.endsWith('.ts') ? 'sources' : 'bundle';
