import { execFile } from 'node:child_process';
import { lstat, readdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { MeasureNodeError } from './errors.ts';
import type { DatadirSnapshot } from './types.ts';

/**
 * Apparent size of every regular file under `path` (what `du -b` counts), without following symlinks. Files that
 * vanish during the walk (a node deleting a segment or a WAL checkpoint) are skipped rather than failing the run.
 */
export async function measureDatadir(path: string): Promise<DatadirSnapshot> {
  const top = await lstat(path).catch((err: Error) => {
    throw new MeasureNodeError('DATADIR_UNREADABLE', `cannot read datadir ${path}: ${err.message}`, { path });
  });
  if (!top.isDirectory()) throw new MeasureNodeError('DATADIR_UNREADABLE', `datadir ${path} is not a directory`, { path });
  let bytes = 0;
  let files = 0;
  const stack = [path];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else if (entry.isFile()) {
        const st = await lstat(full).catch(() => null);
        if (st) {
          bytes += st.size;
          files++;
        }
      }
    }
  }
  return { path, bytes, files, filesystem: await findFilesystem(path) };
}

/** The filesystem holding `path`, from `findmnt -T` (util-linux); null when findmnt is missing or fails. */
export async function findFilesystem(path: string): Promise<DatadirSnapshot['filesystem']> {
  try {
    const { stdout } = await promisify(execFile)('findmnt', ['-T', path, '-J', '-o', 'SOURCE,FSTYPE,TARGET'], { timeout: 5000 });
    const fs = (JSON.parse(stdout) as { filesystems?: { source: string; fstype: string; target: string }[] }).filesystems?.[0];
    return fs ? { source: fs.source, fstype: fs.fstype, target: fs.target } : null;
  } catch {
    return null;
  }
}
