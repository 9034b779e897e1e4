import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';

/** Env that keeps wrangler offline. */
export const WRANGLER_ENV = {
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_HIDE_BANNER: 'true',
};

/** The Durable Object bindings of workers/wrangler.jsonc, for Miniflare. */
export const WORKER_DURABLE_OBJECTS = {
  RATE_BUCKETS: 'RateBucketObject',
  KEYS: 'KeyStoreObject',
  HEAD: 'HeadObject',
  FINAL_CACHE: 'FinalCacheObject',
  USAGE: 'UsageObject',
};

/** A bundled Worker: its directory, the entry file, and its sizes. */
export interface WorkerBundle {
  dir: string;
  entry: string;
  bytes: number;
  gzipBytes: number;
  remove(): void;
}

/** Bundles workers/ offline with `wrangler deploy --dry-run --outdir` (what CI runs) and measures the result. */
export async function bundleWorker(): Promise<WorkerBundle> {
  const dir = mkdtempSync(join(tmpdir(), 'xone-workers-'));
  const bin = resolve('node_modules/.bin/wrangler');
  await promisify(execFile)(bin, ['deploy', '--dry-run', '--outdir', dir, '-c', 'workers/wrangler.jsonc'], {
    env: WRANGLER_ENV,
    timeout: 60_000,
  });
  const entry = join(dir, 'entry.js');
  const code = readFileSync(entry);
  return { dir, entry, bytes: code.length, gzipBytes: gzipSync(code).length, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
