/** Maps a failure during a write to a typed StoreError (the write has already been undone when this is thrown). */
import { StoreError } from './errors.ts';

/** Typed error for `err`; StoreErrors pass through. */
export function toWriteError(err: unknown, what: string): StoreError {
  if (err instanceof StoreError) return err;
  const e = err as { code?: string; message?: string };
  const code = e?.code ?? '';
  const message = e?.message ?? String(err);
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL') {
    return new StoreError('STORE_DISK_FULL', `${what}: disk full (${code}); nothing was committed`, { cause: code, message });
  }
  if (code.startsWith('SQLITE_CONSTRAINT')) {
    return new StoreError('STORE_BAD_BLOCK', `${what}: rejected by a constraint (${message}); nothing was committed`, {
      cause: code,
      message,
    });
  }
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM' || code.startsWith('SQLITE_READONLY')) {
    return new StoreError('STORE_DATADIR_READONLY', `${what}: datadir not writable (${code}); nothing was committed`, {
      cause: code,
      message,
    });
  }
  return new StoreError('STORE_IO', `${what} failed: ${message}; nothing was committed`, { cause: code, message });
}
