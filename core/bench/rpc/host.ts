/** What the RPC benchmarks (bench:rpc, bench:rpc-isolation) record beside their figures: load, filesystem, anvil. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

/** 1/5/15-minute load averages, two decimals. */
export const load = (): number[] => loadavg().map((x) => Number(x.toFixed(2)));

/** `findmnt` of the filesystem holding `dir` (target, source, type, options), or why it failed. */
export function filesystem(dir: string): string {
  try {
    return execFileSync('findmnt', ['-n', '-o', 'TARGET,SOURCE,FSTYPE,OPTIONS', '-T', dir], { encoding: 'utf8' }).trim();
  } catch (err) {
    return `findmnt failed: ${(err as Error).message}`;
  }
}

/** The version of the anvil the benchmarks compare against (npm @foundry-rs/anvil). */
export function anvilVersion(): string {
  const pkg = join(import.meta.dirname, '..', '..', '..', 'node_modules', '@foundry-rs', 'anvil', 'package.json');
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
}
