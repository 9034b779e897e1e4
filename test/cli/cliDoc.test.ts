/** docs/cli.md stays true: every registered command has a section, and `xone run`'s flag table matches its options. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../core/cli/main.ts';
import { RUN_FLAG_RANGES } from '../../core/cli/commands/runRanges.ts';

const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'cli.md'), 'utf8');

describe('docs/cli.md', () => {
  it('default: every command has a heading', () => {
    for (const cmd of buildProgram().commands) expect(doc).toMatch(new RegExp(`^## .*\`xone ${cmd.name()}\\b`, 'm'));
  });

  it('behavior: the run flag table lists exactly the registered flags', () => {
    const run = buildProgram().commands.find((c) => c.name() === 'run');
    expect(run).toBeDefined();
    const registered = run!.options.map((o) => o.long).sort();
    const section = doc.split('## `xone run`')[1].split('\n## ')[0];
    const documented = [...section.matchAll(/^\| `(--[a-z.-]+)/gm)].map((m) => m[1]).sort();
    expect(documented).toEqual(registered);
  });

  it('behavior: the range column lists exactly the ranges the command enforces', () => {
    const section = doc.split('## `xone run`')[1].split('\n## ')[0];
    const documented = Object.fromEntries(
      [...section.matchAll(/^\| `(--[a-z.-]+)[^|]*\|[^|]*\| ([0-9]+)-([0-9]+) \|/gm)].map((m) => [m[1], [Number(m[2]), Number(m[3])]]),
    );
    expect(documented).toEqual(Object.fromEntries(Object.entries(RUN_FLAG_RANGES).map(([k, v]) => [k, [...v]])));
  });
});
