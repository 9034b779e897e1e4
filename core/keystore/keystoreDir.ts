/**
 * A directory of v3 keystore files named like geth's (`UTC--<ISO time>--<address>`), each written with mode 0600 in a
 * 0700 directory, plus password files read as geth reads them (first line, trailing newline dropped).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XoneError } from '../errors.ts';
import { toChecksumAddress } from '../primitives/address.ts';
import { looseHexToBytes } from '../primitives/hex.ts';
import { KeystoreError, parseKeystore, type KeystoreV3 } from './v3.ts';

/** One keystore file found in a directory. */
export interface KeystoreEntry {
  path: string;
  address: string;
}

/** geth's file name: `UTC--2016-03-22T12-57-55.920751759Z--<address without 0x>`. */
export function keystoreFileName(address: string, now = new Date()): string {
  const time = now.toISOString().replace(/:/g, '-');
  return `UTC--${time}--${address.replace(/^0x/, '').toLowerCase()}`;
}

/** Writes `keystore` into `dir` (created 0700 when missing) as a new 0600 file; refuses to overwrite. */
export function writeKeystore(dir: string, keystore: KeystoreV3, now = new Date()): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, keystoreFileName(keystore.address, now));
  writeFileSync(path, JSON.stringify(keystore), { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600); // the umask may have narrowed it further, never widened; make it exact
  return path;
}

/** Keystore files in `dir`, sorted by name (so by creation time); unreadable or foreign files are skipped. */
export function listKeystores(dir: string): KeystoreEntry[] {
  if (!existsSync(dir)) return [];
  const out: KeystoreEntry[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    try {
      const ks = parseKeystore(readFileSync(join(dir, name), 'utf8'));
      out.push({ path: join(dir, name), address: toChecksumAddress(looseHexToBytes(ks.address)) });
    } catch (err) {
      if (!(err instanceof KeystoreError) && !(err instanceof XoneError)) throw err;
    }
  }
  return out;
}

/** The password in a password file: its first line, without the line ending (geth's --password). */
export function readPasswordFile(path: string): string {
  const text = readFileSync(path, 'utf8');
  return text.split(/\r?\n/)[0];
}
