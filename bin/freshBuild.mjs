// Decides whether `dist/` (bin/build.mjs, run by npm's `prepare`) may run instead of the TypeScript sources.
// dist/build-info.json lists every project source the bundle was made from and when the build started; the bundle is
// used only while none of them (nor package-lock.json) changed since, so an edited checkout never runs stale code.
// Checking costs one stat per source file (a few ms).
import { readFileSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = resolve(import.meta.dirname, '..');
/**
 * Where `npm run build` writes. `XONE_DIST` names another build folder, used as it is without the source check (a
 * test builds into a temporary folder while others may be editing the checkout).
 */
export const DIST = process.env.XONE_DIST ? resolve(process.env.XONE_DIST) : join(ROOT, 'dist');

/**
 * The file URL of `<dist>/<entry>` when the bundle is present and (when `checkSources`) no source changed since it
 * was built; otherwise `{ stale: reason }`. `XONE_FROM_SOURCE=1` forces the sources (tsx).
 */
export function freshBuild(entry, dist = DIST, checkSources = !process.env.XONE_DIST) {
  if (process.env.XONE_FROM_SOURCE === '1') return { stale: 'XONE_FROM_SOURCE=1' };
  let info;
  try {
    info = JSON.parse(readFileSync(join(dist, 'build-info.json'), 'utf8'));
  } catch {
    return { stale: 'no dist/ (npm run build makes it)' };
  }
  // Plain concatenation, not path.join: ~370 joins (each a normalize) cost more than the stats themselves.
  const prefix = ROOT + sep;
  // An entry built with its own list (the gateway's) is checked against that list; any other against `inputs`.
  const inputs = info.entries?.[entry] ?? info.inputs;
  if (entry !== 'xone.mjs' && !info.entries?.[entry]) return { stale: `no ${entry} in dist/ (npm run build makes it)` };
  for (const rel of checkSources ? [...inputs, 'package-lock.json'] : []) {
    const stat = statSync(prefix + rel, { throwIfNoEntry: false });
    if (stat === undefined) return { stale: `${rel} is gone` };
    if (stat.mtimeMs > info.builtAt) return { stale: `${rel} changed after the build` };
  }
  return { url: pathToFileURL(join(dist, entry)).href };
}
