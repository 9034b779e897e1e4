/** Types of bin/freshBuild.mjs for TypeScript callers (tests). */
export declare const ROOT: string;
export declare const DIST: string;
/** `{ url }` of `<dist>/<entry>` when the bundle is current, else `{ stale: reason }`. */
export declare function freshBuild(
  entry: string,
  dist?: string,
  checkSources?: boolean,
): { url: string; stale?: undefined } | { url?: undefined; stale: string };
