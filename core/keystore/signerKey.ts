/**
 * Loading the signer's key. A raw key file (64 hex digits, optional 0x) is refused when its permissions let anyone
 * but the owner read it (looser than 0600), as ssh does for private keys.
 */
import { readFileSync, statSync } from 'node:fs';
import { XoneError } from '../errors.ts';
import { looseHexToBytes } from '../primitives/hex.ts';

export function readRawKeyFile(path: string): Uint8Array {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new XoneError(
      'KEY_FILE_PERMISSIONS',
      `signer key file ${path} has mode ${mode.toString(8)}: it must not be readable by group or others (chmod 600)`,
      {
        path,
        mode: mode.toString(8),
      },
    );
  }
  const text = readFileSync(path, 'utf8').trim();
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(text))
    throw new XoneError('KEY_FILE_INVALID', `signer key file ${path}: expected 32 bytes as 64 hex digits`, { path });
  return looseHexToBytes(text);
}
