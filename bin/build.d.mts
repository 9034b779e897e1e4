/** Types of bin/build.mjs for TypeScript callers (tests). */
export declare const EXTERNAL: string[];
/** Bundles the CLI and its worker entries into `outDir` (default dist/). */
export declare function buildDist(outDir?: string): Promise<{ ms: number; entries: string[]; bytes: number }>;
