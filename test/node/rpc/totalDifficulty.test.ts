/** The total-difficulty reader's header field extraction agrees with the full header decoder. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseGenesis } from '../../../core/chain/genesis/index.ts';
import { ethereumHeaderCodec } from '../../../core/chain/header/index.ts';
import { headerDifficulty } from '../../../core/node/rpc/totalDifficulty.ts';
import { decodeRlp } from '../../../core/primitives/rlp.ts';
import { conformancePath } from '../../support/conformance.ts';

const genesis = parseGenesis(readFileSync(conformancePath('execution-apis-london', 'genesis.json'), 'utf8'));

describe('headerDifficulty', () => {
  it('default: reads the difficulty of London headers of every size class (0, one byte, short, long values)', () => {
    for (const difficulty of [0n, 1n, 0x7fn, 0x80n, 0x20000n, 2n ** 64n + 5n, 2n ** 255n]) {
      const rlp = ethereumHeaderCodec.encode({ ...genesis.genesisHeader, difficulty, rlp: undefined });
      expect(headerDifficulty(rlp)).toBe(difficulty);
      expect(ethereumHeaderCodec.decode(decodeRlp(rlp), rlp).difficulty).toBe(difficulty);
    }
  });

  it('error: a non-list is refused', () => {
    expect(() => headerDifficulty(new Uint8Array([0x82, 1, 2]))).toThrow(RangeError);
  });
});
