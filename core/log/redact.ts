/**
 * Keys whose values never reach a log line: private keys, passwords, API keys, mnemonics, authorization headers.
 * A secret key is replaced at the top level, one level down (`signer.passphrase`, `headers.authorization`) and in
 * `req.headers`: the places pino's path redaction was given before. Done by hand in the same walk that turns bigints
 * into strings: with pino's wildcard paths (`*.key` for 15 keys) a dev block's two lines cost 290-500 µs on the loaded
 * host, with this walk 100-190 µs in the same run (issue #15; BENCHMARKS.md, session 10).
 */
import type { LogContext } from './types.ts';

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

/** The text that replaces a redacted value. */
export const REDACTED = '[redacted]';

/**
 * Makes a line's fields safe to write: secret keys (the built-in list plus `extraKeys`) redacted where described
 * above, bigints in the same places as decimal strings (pino's JSON writer throws on them). Returns `ctx` itself
 * when nothing changes, otherwise a copy: the caller's objects are never modified.
 */
export function lineFields(extraKeys: readonly string[] = []): (ctx: LogContext) => LogContext {
  const secret = new Set([...SECRET_KEYS, ...extraKeys]);
  const walk = (ctx: LogContext, depth: number, path: string): LogContext => {
    let out: LogContext | undefined;
    for (const k in ctx) {
      if (!Object.hasOwn(ctx, k)) continue;
      const v = ctx[k];
      let nv = v;
      if (secret.has(k) && v !== undefined) nv = REDACTED;
      else if (typeof v === 'bigint') nv = v.toString();
      else if (v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Error)) {
        // One level down for every object; two for `req.headers` (a request's headers as HTTP loggers bind them).
        if (depth === 0 || (depth === 1 && path === 'req' && k === 'headers')) nv = walk(v as LogContext, depth + 1, k);
      }
      if (nv !== v) (out ??= { ...ctx })[k] = nv;
    }
    return out ?? ctx;
  };
  return (ctx) => walk(ctx, 0, '');
}
