/**
 * One writer per datadir. Two writers would append to the same segment file and cut each other's bytes in
 * reconcile, so the owner holds `LOCK` (created exclusively, holding its pid) until close. A lock whose pid is no
 * longer running is stale (the owner crashed) and is taken over; a live one refuses the open with STORE_LOCKED.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError } from './errors.ts';

/** Name of the lock file inside a datadir. */
const LOCK_FILE = 'LOCK';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The held lock of one datadir. */
export class DatadirLock {
  private constructor(private readonly path: string) {}

  /** Takes the lock or throws STORE_LOCKED naming the holder's pid. */
  static acquire(datadir: string): DatadirLock {
    const path = join(datadir, LOCK_FILE);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        writeSync(fd, `${process.pid}\n`);
        closeSync(fd);
        return new DatadirLock(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
        throw new StoreError('STORE_LOCKED', `datadir ${datadir} is in use by process ${holder} (${path})`, { datadir, pid: holder });
      }
      unlinkSync(path); // stale: its owner is gone
    }
    throw new StoreError('STORE_LOCKED', `datadir ${datadir}: could not take ${path}`, { datadir });
  }

  /** Releases the lock (idempotent). */
  release(): void {
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }
}
