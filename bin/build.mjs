#!/usr/bin/env node
// `npm run build` (and npm's `prepare`, which `npm ci` runs): bundles the `xone` CLI and every worker thread it can
// start, and the `xone-gateway` CLI, into dist/ with esbuild, so a start loads a few pre-compiled files instead of
// compiling hundreds of TypeScript files through tsx in each thread (docs/decisions/0022-bundled-cli.md), and the
// gateway's hot path runs without tsx's per-closure name helpers (decision 0045). Offline and about a second.
//
// Workers are found by their spawn sites: `new URL('./x.ts', import.meta.url)` in core/. Each becomes an entry
// `dist/<path.with.dots>.mjs` and the spawn site is rewritten to point at it; `.mjs` targets (the worker bootstrap) are
// copied. All outputs and shared chunks sit flat in dist/, so `import.meta.url` means the same folder everywhere.
// Native addons and packages that load files next to themselves stay external and resolve from node_modules.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist');
const SPAWN_SITE = /new URL\('(\.{1,2}\/[^']+\.(?:ts|mjs))', import\.meta\.url\)/g;

/** Packages not bundled: native addons (loaded with createRequire) and ones that read files beside their own code. */
export const EXTERNAL = ['better-sqlite3', 'secp256k1', 'c-kzg', '@node-rs/crc32', 'koffi', 'tsx', 'esbuild', 'thread-stream', 'ioredis'];

/** The gateway CLI's bundle: dist/xone-gateway.mjs (bin/xone-gateway.mjs runs it while it is current). */
const GATEWAY_ENTRY = 'xone-gateway';

/** The sources an output file holds, with those of every chunk it imports (statically or dynamically), transitively. */
function entryInputs(metafile, out) {
  const seen = new Set();
  const inputs = new Set();
  const visit = (o) => {
    if (seen.has(o) || !metafile.outputs[o]) return;
    seen.add(o);
    for (const i of Object.keys(metafile.outputs[o].inputs)) inputs.add(i);
    for (const imp of metafile.outputs[o].imports) if (!imp.external) visit(imp.path);
  };
  visit(out);
  return [...inputs];
}

/** `core/chainService/worker.ts` -> `core.chainService.worker.mjs`: one flat name per source file. */
const flatName = (file) =>
  relative(ROOT, file)
    .replace(/\.(ts|mjs)$/, '')
    .split(/[\\/]/)
    .join('.') + '.mjs';

function sourceFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'bench' && e.name !== 'node_modules') out.push(...sourceFiles(p));
    } else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Every file some spawn site in core/ points at, keyed by absolute path. */
function spawnTargets() {
  const targets = new Set();
  for (const file of sourceFiles(join(ROOT, 'core'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(SPAWN_SITE)) targets.add(resolve(dirname(file), m[1]));
  }
  return [...targets].sort();
}

/** Rewrites spawn sites to the flat dist/ names while esbuild loads each project .ts file. */
const spawnSites = {
  name: 'xone-spawn-sites',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${join('node_modules', '')}`)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const contents = text.replace(
        SPAWN_SITE,
        (_all, rel) => `new URL('./${flatName(resolve(dirname(args.path), rel))}', import.meta.url)`,
      );
      return { contents, loader: 'ts' };
    });
  },
};

/** Builds into `outDir` (default dist/); resolves with what it wrote. Only one build per folder at a time. */
export async function buildDist(outDir = OUT) {
  const started = performance.now();
  const builtAt = Date.now();
  const targets = spawnTargets();
  const entryPoints = { xone: join(ROOT, 'core', 'cli', 'main.ts'), [GATEWAY_ENTRY]: join(ROOT, 'gateway', 'adapters', 'node', 'cli.ts') };
  for (const t of targets.filter((t) => t.endsWith('.ts'))) entryPoints[flatName(t).replace(/\.mjs$/, '')] = t;
  // Build into a fresh temporary folder and swap it in, so a failed build never leaves a half-written dist/.
  const tmp = `${outDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const result = await build({
    entryPoints,
    outdir: tmp,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunk-[hash]',
    external: EXTERNAL,
    sourcemap: 'linked',
    logLevel: 'warning',
    metafile: true,
    // Bundled CommonJS packages call require() for Node built-ins; ESM output has none unless we make one.
    banner: {
      js: "import { createRequire as __xoneCreateRequire } from 'node:module'; const require = __xoneCreateRequire(import.meta.url);",
    },
    plugins: [spawnSites],
  });
  for (const t of targets.filter((t) => t.endsWith('.mjs'))) copyFileSync(t, join(tmp, flatName(t)));
  writeFileSync(join(tmp, 'package.json'), JSON.stringify({ type: 'module', private: true }) + '\n');
  // What bin/freshBuild.mjs checks before running the bundle: the project sources it holds and when the build began.
  // The gateway's sources are listed apart (`entries`), so an edited gateway file never sends `xone` to the sources
  // and an edited core file sends the gateway there only when the gateway's bundle holds it.
  const project = (p) => !p.startsWith('node_modules/') && !p.includes('/node_modules/');
  const isGateway = (out) => out.endsWith(`${GATEWAY_ENTRY}.mjs`);
  const gatewayOut = Object.keys(result.metafile.outputs).find((out) => result.metafile.outputs[out].entryPoint && isGateway(out));
  const gatewayInputs = gatewayOut ? entryInputs(result.metafile, gatewayOut).filter(project) : [];
  const otherInputs = new Set(
    Object.entries(result.metafile.outputs)
      .filter(([out, o]) => o.entryPoint && !isGateway(out))
      .flatMap(([out]) => entryInputs(result.metafile, out))
      .filter(project),
  );
  writeFileSync(
    join(tmp, 'build-info.json'),
    JSON.stringify({
      builtAt,
      inputs: [...otherInputs, ...targets.map((t) => relative(ROOT, t))].sort(),
      entries: { [`${GATEWAY_ENTRY}.mjs`]: gatewayInputs.sort() },
    }) + '\n',
  );
  rmSync(outDir, { recursive: true, force: true });
  renameSync(tmp, outDir);
  const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  return { ms: Math.round(performance.now() - started), entries: Object.keys(entryPoints), bytes };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  try {
    const r = await buildDist();
    process.stderr.write(`xone build: dist/ with ${r.entries.length} entries, ${(r.bytes / 1e6).toFixed(1)} MB, ${r.ms} ms\n`);
  } catch (err) {
    process.stderr.write(`xone build failed: ${err instanceof Error ? err.message : String(err)}\n`);
    // Under `npm ci` (prepare) a failed bundle must not fail the install: xone then runs from the sources via tsx.
    if (process.env.npm_lifecycle_event === 'prepare') process.stderr.write('xone will run from the TypeScript sources (slower start)\n');
    else process.exitCode = 1;
  }
}
