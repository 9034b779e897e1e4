/**
 * Bundles test/crash/writer.ts into one ESM file (esbuild, which tsx already brings) so each crash round starts a
 * bare `node` in ~0.1 s instead of going through the tsx loader (~1 s under load): the test needs hundreds of
 * process starts. Packages stay external and load from node_modules as usual. keccak.ts is swapped for its
 * @noble/hashes backend (same function, same digests): loading hash-wasm costs ~100 ms of CPU per start, which
 * over hundreds of starts is most of the test's CPU on a shared 2-core box.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const REPO = join(import.meta.dirname, '..', '..');

/** Builds the writer bundle (`entry`, default writer.ts) under .xone/crash/ and returns its path. */
export async function bundleWriter(tag: string, entry = 'writer.ts'): Promise<string> {
  const outDir = join(REPO, '.xone', 'crash');
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, `writer-${tag}-${process.pid}.mjs`);
  await build({
    entryPoints: [join(import.meta.dirname, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
    plugins: [
      {
        name: 'noble-keccak',
        setup(b) {
          b.onResolve({ filter: /primitives\/keccak\.ts$/ }, () => ({ path: 'noble-keccak', namespace: 'xone' }));
          b.onLoad({ filter: /.*/, namespace: 'xone' }, () => ({
            contents: [
              "import { keccak_256 } from '@noble/hashes/sha3.js';",
              'export const keccak256 = (d) => keccak_256(d);',
              'export const keccak256Noble = keccak256;',
              "export const keccakBackend = 'noble';",
              'export const KECCAK_EMPTY = keccak256(new Uint8Array(0));',
            ].join('\n'),
            resolveDir: REPO,
            loader: 'js',
          }));
        },
      },
    ],
  });
  return outfile;
}
