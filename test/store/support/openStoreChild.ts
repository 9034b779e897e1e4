/**
 * Opens a ChainStore on argv[2] and prints `{"ok":true}` or the StoreError as JSON. The read-only datadir test runs
 * it as an unprivileged user where root cannot make a read-only mount (root ignores permission bits).
 */
import { ChainStore, StoreError } from '../../../core/store/index.ts';

try {
  ChainStore.open({ datadir: process.argv[2] }).close();
  process.stdout.write(JSON.stringify({ ok: true }) + '\n');
} catch (err) {
  process.stdout.write(JSON.stringify(err instanceof StoreError ? err.toObject() : { message: String(err) }) + '\n');
}
