/**
 * An injected fault for end-to-end tests of a full disk (XONE_TEST_DISK_FULL_FILE, core/node/testHooks.ts): the real
 * disk, except that while a flag file exists every segment write fails with ENOSPC, as a full disk's would. A test
 * creates the file to fill the disk and removes it to free space, from outside the node's process.
 */
import { existsSync } from 'node:fs';
import { nodeSegmentFs, type SegmentFs } from './segmentFs.ts';

/** The disk, full while `flagPath` exists (one stat per segment write: only ever built for a test). */
export function fullWhileFlagFs(flagPath: string): SegmentFs {
  return {
    ...nodeSegmentFs,
    write(fd, data, position) {
      if (existsSync(flagPath)) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      nodeSegmentFs.write(fd, data, position);
    },
  };
}
