/** Names of segment files: `segments/00000001.seg`, numbered from 1 in creation order. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Directory of segment files inside a datadir. */
export const SEGMENTS_DIR = 'segments';

const NAME = /^(\d{8})\.seg$/;

/** File name of segment `id`. */
function segmentFileName(id: number): string {
  return `${String(id).padStart(8, '0')}.seg`;
}

/** Path of segment `id` under `segmentsDir`. */
export function segmentPath(segmentsDir: string, id: number): string {
  return join(segmentsDir, segmentFileName(id));
}

/** Segment ids present on disk, ascending; other names are ignored (never ours to delete). */
export function listSegmentIds(segmentsDir: string): number[] {
  const ids: number[] = [];
  for (const name of readdirSync(segmentsDir)) {
    const m = NAME.exec(name);
    if (m) ids.push(Number(m[1]));
  }
  return ids.sort((a, b) => a - b);
}
