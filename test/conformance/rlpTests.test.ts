/** ethereum/tests RLPTests through our codec: every valid case round-trips, every invalid one is refused. */
import { describe, expect, it } from 'vitest';
import { decodeRlp, encodeRlp, RlpError, type RlpInput } from '../../core/primitives/rlp.ts';
import { bigIntToBytes, bytesToHex, looseHexToBytes } from '../../core/primitives/hex.ts';
import { conformancePath, jsonFilesUnder, readJson } from '../support/conformance.ts';

type Json = string | number | Json[];
interface RlpCase {
  in: Json;
  out: string;
}

function toInput(value: Json): RlpInput {
  if (Array.isArray(value)) return value.map(toInput);
  if (typeof value === 'number') return bigIntToBytes(BigInt(value));
  if (value.startsWith('#')) return bigIntToBytes(BigInt(value.slice(1)));
  return new TextEncoder().encode(value);
}

const files = jsonFilesUnder(conformancePath('ethereum-tests', 'RLPTests'));

describe('RLPTests', () => {
  it('found the vectors', () => expect(files.length).toBeGreaterThanOrEqual(3));
  for (const file of files) {
    const cases = readJson<Record<string, RlpCase>>(file);
    for (const [name, c] of Object.entries(cases)) {
      if (c.in === 'INVALID') {
        it(`invalid: ${name}`, () => {
          expect(() => decodeRlp(looseHexToBytes(c.out))).toThrow(RlpError);
        });
      } else if (c.in === 'VALID') {
        it(`valid: ${name}`, () => {
          const bytes = looseHexToBytes(c.out);
          expect(bytesToHex(encodeRlp(decodeRlp(bytes) as RlpInput))).toBe(bytesToHex(bytes));
        });
      } else {
        it(`encode: ${name}`, () => {
          const expected = looseHexToBytes(c.out);
          expect(bytesToHex(encodeRlp(toInput(c.in)))).toBe(bytesToHex(expected));
          expect(bytesToHex(encodeRlp(decodeRlp(expected) as RlpInput))).toBe(bytesToHex(expected));
        });
      }
    }
  }
});
