/**
 * SQLite's own flushes per commit, counted with strace on a child process (see syncProbe.ts). better-sqlite3 has
 * no VFS hook from JavaScript, so counting the fsync/fdatasync system calls is the exact method available; the
 * timed runs are not traced (strace slows every call), they reuse the per-commit figure measured here.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { round } from './stats.ts';

const REPO = join(import.meta.dirname, '..', '..', '..');

function tracedSyncs(
  datadir: string,
  blocks: number,
  batch: number,
  sync: string,
  shape: string,
): { traced: number; ours: number; commits: number } {
  const out = join(datadir + '-strace.txt');
  const stdout = execFileSync(
    'strace',
    [
      '-f',
      '-qq',
      '-c',
      '-o',
      out,
      '-e',
      'trace=fsync,fdatasync',
      process.execPath,
      join(REPO, 'bin', 'run-ts.mjs'),
      join(import.meta.dirname, 'syncProbe.ts'),
      '--datadir',
      datadir,
      '--blocks',
      String(blocks),
      '--batch',
      String(batch),
      '--sync',
      sync,
      '--shape',
      shape,
    ],
    { encoding: 'utf8' },
  );
  let traced = 0;
  for (const line of readFileSync(out, 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[f.length - 1] === 'fsync' || f[f.length - 1] === 'fdatasync') traced += Number(f[3]);
  }
  rmSync(out, { force: true });
  rmSync(datadir, { recursive: true, force: true });
  const probe = JSON.parse(stdout.trim().split('\n').pop() as string) as { ours: number; commits: number };
  return { traced, ...probe };
}

/** SQLite syncs per commit for the mode, or undefined (with the reason) when strace is unavailable. */
export function sqliteSyncsPerCommit(
  dir: string,
  blocks: number,
  batch: number,
  sync: 'FULL' | 'NORMAL',
  shape: 'seed' | 'indexed' | 'empty' = 'seed',
): { perCommit: number; traced: number; ours: number; commits: number } | { error: string } {
  try {
    const base = tracedSyncs(join(dir, `probe0-${sync}-${batch}-${shape}`), 0, batch, sync, shape);
    const run = tracedSyncs(join(dir, `probeN-${sync}-${batch}-${shape}`), blocks, batch, sync, shape);
    const sqlite = run.traced - base.traced - (run.ours - base.ours);
    const commits = run.commits - base.commits;
    return { perCommit: round(sqlite / commits, 3), traced: run.traced - base.traced, ours: run.ours - base.ours, commits };
  } catch (err) {
    return { error: `strace count failed: ${(err as Error).message.split('\n')[0]}` };
  }
}
