/**
 * Wire-level check against the execution-apis test requests: every request the suite sends must be accepted by our
 * parameter decoders and method table (whatever a fresh real node answers), and where the suite expects a -32602
 * our code and message must equal geth's. The full replay against an imported chain is `xone rpc-compat`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { conformancePath } from '../support/conformance.ts';
import { type RealNode, startRealNode } from './support/realNode.ts';

const SUITE = conformancePath('execution-apis-london');

function exchanges(): { file: string; request: string; response: string }[] {
  const out: { file: string; request: string; response: string }[] = [];
  for (const dir of readdirSync(SUITE, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const f of readdirSync(join(SUITE, dir.name)).filter((n) => n.endsWith('.io'))) {
      const lines = readFileSync(join(SUITE, dir.name, f), 'utf8').split('\n');
      for (let i = 0; i < lines.length; i++) {
        if (lines[i].startsWith('>> '))
          out.push({ file: `${dir.name}/${f}`, request: lines[i].slice(3), response: (lines[i + 1] ?? '').slice(3) });
      }
    }
  }
  return out;
}

let h: RealNode;
beforeAll(async () => {
  h = await startRealNode();
});
afterAll(() => h?.close());

describe('execution-apis requests', () => {
  test('behavior: every request decodes; expected -32602 errors match code and message', async () => {
    const all = exchanges();
    expect(all.length).toBeGreaterThanOrEqual(40);
    const problems: string[] = [];
    for (const x of all) {
      const want = JSON.parse(x.response) as { error?: { code: number; message: string } };
      const got = (await h.post(x.request)).json as { error?: { code: number; message: string } };
      if (want.error?.code === -32602) {
        if (got.error?.code !== -32602 || got.error.message !== want.error.message)
          problems.push(`${x.file}: want ${JSON.stringify(want.error)} got ${JSON.stringify(got.error)}`);
      } else if (got.error && [-32700, -32600, -32601, -32602].includes(got.error.code)) {
        problems.push(`${x.file}: refused with ${JSON.stringify(got.error)}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
