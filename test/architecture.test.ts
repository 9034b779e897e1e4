/** The folder picture of docs/architecture.md is the lint table (infra/lint/coreArrows.js), and the table has no cycle. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORE_ARROWS } from '../infra/lint/coreArrows.js';

const ROOT = join(import.meta.dirname, '..');
const arrows = CORE_ARROWS;

describe('core folders and arrows', () => {
  it('default: docs/architecture.md lists each folder with exactly the arrows the lint rule allows', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-zA-Z]+)\/` \| [^|]+ \| ([^|]+) \|$/gm)].map((m) => [
      m[1],
      m[2].trim() === '—' ? [] : m[2].split(',').map((x) => x.trim().replace(/`/g, '')),
    ]);
    expect(Object.fromEntries(rows)).toEqual(arrows);
  });

  it('behavior: every folder of core/ has a row, and every row a folder', () => {
    const folders = readdirSync(join(ROOT, 'core'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(Object.keys(arrows).sort()).toEqual(folders);
  });

  it('behavior: the allowed arrows form no cycle', () => {
    const state = new Map<string, 'open' | 'done'>();
    const visit = (f: string, path: string[]): void => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'open') throw new Error(`cycle: ${[...path, f].join(' -> ')}`);
      state.set(f, 'open');
      for (const g of arrows[f] ?? []) visit(g, [...path, f]);
      state.set(f, 'done');
    };
    for (const f of Object.keys(arrows)) visit(f, []);
  });
});
