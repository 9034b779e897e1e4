/** Keystores (Web3 Secret Storage v3) and loading the signer's key for `xone run --signer`. */
import { readFileSync } from 'node:fs';
import { XoneError } from '../errors.ts';
import { readRawKeyFile } from './signerKey.ts';
import { readPasswordFile } from './keystoreDir.ts';
import { decryptKeystore, parseKeystore } from './v3.ts';

export { keystoreFileName, listKeystores, readPasswordFile, writeKeystore, type KeystoreEntry } from './keystoreDir.ts';
export {
  decryptKeystore,
  encryptKeystore,
  KeystoreError,
  LIGHT_SCRYPT,
  parseKeystore,
  STANDARD_SCRYPT,
  type KeystoreV3,
  type ScryptParams,
} from './v3.ts';

/**
 * The signer key in `path`: a v3 keystore (JSON) decrypted with the password in `passwordFile`, or else a raw hex key
 * file, which must be mode 0600 or stricter.
 */
export function loadSignerKey(path: string, passwordFile?: string): Uint8Array {
  const text = readFileSync(path, 'utf8');
  if (!text.trimStart().startsWith('{')) return readRawKeyFile(path);
  if (passwordFile === undefined)
    throw new XoneError('KEYSTORE_PASSWORD_REQUIRED', `signer ${path} is a keystore: give its password with --password <file>`, { path });
  return decryptKeystore(parseKeystore(text), readPasswordFile(passwordFile));
}
