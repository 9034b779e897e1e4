import { parseCidr } from '../address/ip.ts';
import { bucketProblems } from '../config/bucketBounds.ts';
import type { ApiKeyPolicy } from './types.ts';

/** A key operation the caller got wrong (a bad field, an unknown id or tier); `field` names what to fix. */
export class KeyPolicyError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'KeyPolicyError';
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Method names or `prefix_*` patterns: what methodMatches understands, nothing else. */
const METHOD_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,127}\*?$|^\*$/;
/** `*`, an origin (`https://app.example.com[:port]`), or a subdomain wildcard with or without scheme. */
const ORIGIN_PATTERN = /^\*$|^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::\d{1,5})?$/i;
const MAX_LIST = 1_000;
const MAX_LABEL = 256;

function stringList(v: unknown, field: string, check: (s: string) => boolean, what: string): string[] {
  if (!Array.isArray(v)) throw new KeyPolicyError(`${field}: expected an array of ${what}`, field);
  if (v.length > MAX_LIST) throw new KeyPolicyError(`${field}: at most ${MAX_LIST} entries`, field);
  v.forEach((s, i) => {
    if (typeof s !== 'string' || !check(s))
      throw new KeyPolicyError(`${field}[${i}]: expected ${what}, got ${JSON.stringify(s)?.slice(0, 80)}`, field);
  });
  return v as string[];
}

/**
 * Validates a key policy as it arrives from the admin API, the CLI or a caller of KeyService: every field's type and
 * range, and no unknown field, so a key can never be created with limits that mean "unlimited" (0, NaN, a string)
 * or "refuse everything for 31 years" (a negative rate). Throws a KeyPolicyError naming the first bad field.
 */
export function validatePolicy(raw: unknown, knownTiers: readonly string[], now: number): Partial<ApiKeyPolicy> {
  if (raw === undefined || raw === null) return {};
  if (!isObj(raw)) throw new KeyPolicyError('(body): expected a JSON object', '(body)');
  const out: Partial<ApiKeyPolicy> = {};
  for (const [field, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    switch (field) {
      case 'label':
        if (typeof v !== 'string' || v.length > MAX_LABEL)
          throw new KeyPolicyError(`label: expected a string of at most ${MAX_LABEL} characters`, field);
        out.label = v;
        break;
      case 'tier':
        if (typeof v !== 'string' || !knownTiers.includes(v))
          throw new KeyPolicyError(`tier: unknown tier ${JSON.stringify(v)?.slice(0, 80)} (known: ${knownTiers.join(', ')})`, field);
        out.tier = v;
        break;
      case 'limits': {
        if (!isObj(v)) throw new KeyPolicyError('limits: expected an object {ratePerSec, burst}', field);
        for (const k of Object.keys(v))
          if (k !== 'ratePerSec' && k !== 'burst') throw new KeyPolicyError(`limits.${k}: unknown field`, `limits.${k}`);
        const problems = bucketProblems(v, 'limits');
        if (problems.length > 0) throw new KeyPolicyError(problems[0] as string, problems[0]?.split(':')[0]);
        out.limits = { ratePerSec: v.ratePerSec as number, burst: v.burst as number };
        break;
      }
      case 'allowMethods':
      case 'denyMethods':
        out[field] = stringList(v, field, (s) => METHOD_PATTERN.test(s), 'method names or prefix_* patterns');
        break;
      case 'allowIps':
        out.allowIps = stringList(v, field, (s) => parseCidr(s) !== undefined, 'addresses or CIDRs');
        break;
      case 'allowOrigins':
        out.allowOrigins = stringList(
          v,
          field,
          (s) => s.length <= 253 && ORIGIN_PATTERN.test(s),
          'origins (https://app.example.com, *.example.com or *)',
        );
        break;
      case 'expiresAt':
        if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= now)
          throw new KeyPolicyError('expiresAt: expected a time in the future, in epoch milliseconds', field);
        out.expiresAt = v;
        break;
      default:
        throw new KeyPolicyError(`${field}: unknown field`, field);
    }
  }
  return out;
}
