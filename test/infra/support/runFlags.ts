/**
 * The long flags `xone run` registers today, read from its source (core/cli/commands/run.ts) so deploy files cannot
 * drift from the CLI. Parsing the source keeps this test from loading the whole node.
 */
import { readFileSync } from 'node:fs';

export function xoneRunFlags(path = 'core/cli/commands/run.ts'): Set<string> {
  const source = readFileSync(path, 'utf8');
  const flags = [...source.matchAll(/(?:\.option|\.requiredOption|new Option)\(\s*'(?:-\w, )?(--[a-z][a-z0-9.-]*)/g)].map((m) => m[1]);
  if (flags.length === 0) throw new Error(`no options found in ${path}`);
  return new Set(flags);
}

/** Every `--flag` in a command line (values and `$VARS` ignored). */
export function flagsIn(commandLine: string): string[] {
  return [...commandLine.matchAll(/(?:^|\s)(--[a-z][a-z0-9.-]*)/g)].map((m) => m[1]);
}
