/**
 * Nibble paths and the hex-prefix (compact) encoding of the Yellow Paper, appendix C
 * (https://ethereum.github.io/yellowpaper/paper.pdf). Trie paths are sequences of 4-bit nibbles; a node stores its
 * partial path hex-prefix encoded, whose first nibble carries the leaf flag (2) and the odd-length flag (1).
 */
import { TrieError } from './errors.ts';

/** Splits bytes into nibbles, high nibble first. */
export function bytesToNibbles(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    out[2 * i] = bytes[i] >> 4;
    out[2 * i + 1] = bytes[i] & 0x0f;
  }
  return out;
}

/** Joins an even-length nibble path back into bytes (keys are whole bytes). */
export function nibblesToBytes(nibbles: Uint8Array): Uint8Array {
  const out = new Uint8Array(nibbles.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = (nibbles[2 * i] << 4) | nibbles[2 * i + 1];
  return out;
}

/** Length of the common prefix of two nibble paths. */
export function commonPrefixLength(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Hex-prefix encodes a nibble path; `leaf` sets the terminator flag. */
export function hexPrefixEncode(nibbles: Uint8Array, leaf: boolean): Uint8Array {
  const odd = nibbles.length & 1;
  const out = new Uint8Array((nibbles.length >> 1) + 1);
  const flag = (leaf ? 2 : 0) + odd;
  let i = 0;
  if (odd) {
    out[0] = (flag << 4) | nibbles[0];
    i = 1;
  } else {
    out[0] = flag << 4;
  }
  for (let o = 1; i < nibbles.length; i += 2, o++) out[o] = (nibbles[i] << 4) | nibbles[i + 1];
  return out;
}

/** Decodes a hex-prefix path into its nibbles and leaf flag; refuses flag nibbles above 3 and odd-flag padding. */
export function hexPrefixDecode(encoded: Uint8Array): { nibbles: Uint8Array; leaf: boolean } {
  if (encoded.length === 0) throw new TrieError('TRIE_BAD_NODE', 'trie: empty hex-prefix path');
  const flag = encoded[0] >> 4;
  if (flag > 3) throw new TrieError('TRIE_BAD_NODE', `trie: hex-prefix flag nibble ${flag} is not 0-3`, { flag });
  const odd = flag & 1;
  if (!odd && (encoded[0] & 0x0f) !== 0) throw new TrieError('TRIE_BAD_NODE', 'trie: even hex-prefix path with non-zero padding nibble');
  const nibbles = new Uint8Array((encoded.length - 1) * 2 + odd);
  let o = 0;
  if (odd) nibbles[o++] = encoded[0] & 0x0f;
  for (let i = 1; i < encoded.length; i++) {
    nibbles[o++] = encoded[i] >> 4;
    nibbles[o++] = encoded[i] & 0x0f;
  }
  return { nibbles, leaf: flag >= 2 };
}
