/**
 * Ethereum addresses as text: EIP-55 mixed-case checksums (https://eips.ethereum.org/EIPS/eip-55) and a strict parser.
 * All-lower and all-upper hex carry no checksum and are accepted as is; mixed case must be the exact checksum,
 * because a wrong mixed-case address is almost always a typo that would send funds nowhere.
 */
import { XoneError } from '../errors.ts';
import { bytesToHex } from './hex.ts';
import { keccak256 } from './keccak.ts';

export type AddressErrorCode = 'ADDRESS_NO_PREFIX' | 'ADDRESS_BAD_LENGTH' | 'ADDRESS_INVALID_HEX' | 'ADDRESS_BAD_CHECKSUM';

export class AddressError extends XoneError<AddressErrorCode> {}

const BODY_RE = /^[0-9a-fA-F]*$/;
const encoder = new TextEncoder();

/** EIP-55 checksummed form of a 20-byte address (bytes, or hex in any case). */
export function toChecksumAddress(address: Uint8Array | string): string {
  const lower =
    typeof address === 'string' ? bytesToHex(parseAddress(address, { checksum: false })).slice(2) : addressBytesToLowerHex(address);
  const hash = keccak256(encoder.encode(lower));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower[i];
    // Nibble i of the hash: high nibble of byte i/2 for even i, low for odd. >= 8 means upper-case letter.
    const nibble = i % 2 === 0 ? hash[i >> 1] >> 4 : hash[i >> 1] & 0x0f;
    out += nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

function addressBytesToLowerHex(address: Uint8Array): string {
  if (address.length !== 20) {
    throw new AddressError('ADDRESS_BAD_LENGTH', `address must be 20 bytes, got ${address.length}`, { length: address.length });
  }
  return bytesToHex(address).slice(2);
}

export interface ParseAddressOptions {
  /** Check the EIP-55 checksum of mixed-case input (default true). */
  checksum?: boolean;
}

/**
 * Parses "0x" + 40 hex digits into 20 bytes. Mixed-case input must carry a valid EIP-55 checksum, otherwise
 * `AddressError('ADDRESS_BAD_CHECKSUM')` names the address and its correct form.
 */
export function parseAddress(text: string, { checksum = true }: ParseAddressOptions = {}): Uint8Array {
  if (typeof text !== 'string' || !text.startsWith('0x')) {
    throw new AddressError('ADDRESS_NO_PREFIX', `address ${JSON.stringify(text)} must start with 0x`, { address: text });
  }
  const body = text.slice(2);
  if (body.length !== 40) {
    throw new AddressError('ADDRESS_BAD_LENGTH', `address ${text} must have 40 hex digits, got ${body.length}`, {
      address: text,
      digits: body.length,
    });
  }
  if (!BODY_RE.test(body)) throw new AddressError('ADDRESS_INVALID_HEX', `address ${text} contains a non-hex character`, { address: text });
  const bytes = Uint8Array.from(Buffer.from(body, 'hex'));
  if (checksum && body !== body.toLowerCase() && body !== body.toUpperCase()) {
    const expected = toChecksumAddress(bytes);
    if (expected !== text) {
      throw new AddressError('ADDRESS_BAD_CHECKSUM', `address ${text} has an invalid EIP-55 checksum (expected ${expected})`, {
        address: text,
        expected,
      });
    }
  }
  return bytes;
}

/** True when `text` parses as an address (with a valid checksum if mixed case). */
export function isAddress(text: string): boolean {
  try {
    parseAddress(text);
    return true;
  } catch (err) {
    if (err instanceof AddressError) return false;
    throw err;
  }
}
