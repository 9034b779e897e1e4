import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonScanError, parseEntry, scanEntries, type ScannedEntry } from '../../../core/exec/vectors/jsonScan.ts';

const dir = mkdtempSync(join(tmpdir(), 'xone-jsonscan-'));
let files = 0;
function fileWith(text: string): string {
  const f = join(dir, `f${files++}.json`);
  writeFileSync(f, text);
  return f;
}

const scan = (file: string, chunk: number, wants = {}): ScannedEntry[] => [...scanEntries(file, wants, chunk)];

/** A fixture shaped like ethereum/tests, with the awkward strings a scanner can trip on. */
const FIXTURE = {
  case_a_Cancun: {
    _info: { comment: 'quote " and backslash \\ and \\" inside, unicode é ✓, escaped \u0001' },
    blocks: [{ rlp: '0x' + 'ab'.repeat(50) }, { rlp: '0x01', expectException: 'X' }],
    network: 'Cancun',
    post: { Cancun: [{ hash: '0x1' }, { hash: '0x2' }], London: [{ hash: '0x3' }] },
    nums: [1, -2.5e3, true, false, null, [], {}],
  },
  'case "b" \\ London': { network: 'London', post: { Shanghai: [] }, empty: '' },
  scalar: 12,
  str: 'x\\',
  arr: [[], [[]], { a: [1] }],
  tail: { network: 'Shanghai\\"' },
};

describe('scanEntries', () => {
  it('default: finds each entry, its span and the wanted fields, for every chunk size', () => {
    for (const text of [JSON.stringify(FIXTURE), JSON.stringify(FIXTURE, null, 2), ` \n${JSON.stringify(FIXTURE, null, '\t')}\n `]) {
      const file = fileWith(text);
      const expected = Object.entries(FIXTURE);
      for (const chunk of [1, 2, 3, 5, 7, 16, 64, 1 << 20]) {
        const entries = scan(file, chunk, { strings: ['network'], keysOf: ['post'] });
        expect(entries.map((e) => e.name)).toEqual(expected.map(([k]) => k));
        for (const [i, e] of entries.entries()) {
          expect(parseEntry(file, e)).toEqual(expected[i]?.[1]);
          expect(JSON.parse(Buffer.from(text).subarray(e.start, e.end).toString())).toEqual(expected[i]?.[1]);
        }
        expect(entries[0]?.strings.get('network')).toBe('Cancun');
        expect([...(entries[0]?.keys.get('post') ?? [])]).toEqual([
          ['Cancun', 2],
          ['London', 1],
        ]);
        expect(entries[1]?.strings.get('network')).toBe('London');
        expect([...(entries[1]?.keys.get('post') ?? [])]).toEqual([['Shanghai', 0]]);
        expect(entries[2]?.strings.size).toBe(0);
        expect(entries[5]?.strings.get('network')).toBe('Shanghai\\"');
      }
    }
  });

  it('behavior: records nothing it was not asked for', () => {
    const file = fileWith(JSON.stringify(FIXTURE));
    const [first] = scan(file, 4096);
    expect(first?.strings.size).toBe(0);
    expect(first?.keys.size).toBe(0);
  });

  it('behavior: an empty object has no entries', () => {
    expect(scan(fileWith(' { } '), 1)).toEqual([]);
  });

  it('error: malformed structure is refused with its byte offset, after the entries before it', () => {
    const cases: [string, RegExp][] = [
      ['[1, 2]', /not a JSON object at byte 0/],
      ['{"a": 1', /ends inside the top-level object/],
      ['{"a": {"b": "x}', /ends inside/],
      ['{"a": 1 "b": 2}', /expected "," or a closing bracket, found "\\"" at byte 8/],
      ['{"a" 1}', /expected ":", found "1" at byte 5/],
      ['{"a": 1} {}', /content after the top-level object at byte 9/],
      ['{a: 1}', /expected a key, found "a" at byte 1/],
      ['{"a": @}', /unexpected "@" at byte 6/],
      ['{"a": [1}', /expected "," or a closing bracket/],
      ['', /not a JSON object/],
    ];
    for (const [text, message] of cases) {
      for (const chunk of [1, 3, 4096]) {
        const file = fileWith(text);
        expect(() => scan(file, chunk), `${text} (chunk ${chunk})`).toThrow(JsonScanError);
        expect(() => scan(file, chunk)).toThrow(message);
      }
    }
    const file = fileWith('{"ok": {"network": "London"}, "bad": [}');
    const seen: string[] = [];
    expect(() => {
      for (const e of scanEntries(file, {}, 2)) seen.push(e.name);
    }).toThrow(JsonScanError);
    expect(seen).toEqual(['ok']);
  });
});
