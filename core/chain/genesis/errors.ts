/** Typed errors of genesis parsing. `meta.key` names the JSON key path (e.g. `alloc.0xab…​.balance`). */
import { XoneError } from '../../errors.ts';

export type GenesisErrorCode =
  /** The input is not JSON, or not an object where one is required. */
  | 'GENESIS_BAD_JSON'
  /** A required key is absent. */
  | 'GENESIS_MISSING_FIELD'
  /** A value has the wrong type, format, size or range. */
  | 'GENESIS_BAD_FIELD'
  /** A key we do not know (a typo, or a fork this client does not implement). */
  | 'GENESIS_UNKNOWN_KEY'
  /** A valid geth setting this client does not implement (e.g. Cancun at genesis, DAO fork support). */
  | 'GENESIS_UNSUPPORTED'
  /** Forks out of order or with a gap. */
  | 'GENESIS_FORK_ORDER'
  /** A supplied header disagrees with the one computed from the JSON (test fixtures). */
  | 'GENESIS_MISMATCH';

export class GenesisError extends XoneError<GenesisErrorCode> {}
