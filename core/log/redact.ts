/**
 * Keys whose values never reach a log line: private keys, passwords, API keys, mnemonics, authorization headers.
 * pino's redaction matches exact paths (with `*` for one level), so each key is listed at the top level, one level
 * down and under the usual HTTP header holders.
 */
const SECRET_KEYS = [
  'privateKey',
  'private_key',
  'secretKey',
  'secret',
  'password',
  'passphrase',
  'passwordFile',
  'mnemonic',
  'seed',
  'apiKey',
  'api_key',
  'authorization',
  'Authorization',
  'cookie',
  'token',
];

/** The redaction paths for pino: `key`, `*.key`, `headers.key`, `req.headers.key` for every secret key. */
export function redactionPaths(extraKeys: readonly string[] = []): string[] {
  const keys = [...SECRET_KEYS, ...extraKeys];
  return keys.flatMap((k) => [k, `*.${k}`, `headers.${k}`, `req.headers.${k}`]);
}

/** The text that replaces a redacted value. */
export const REDACTED = '[redacted]';
