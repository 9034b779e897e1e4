/** Types of coreArrows.js (plain JS so eslint.config.js can load it without a TypeScript loader). */
export declare const CORE_ARROWS: Record<string, string[]>;
export declare function coreFolder(root: string, file: string): string | undefined;
