/** HMAC-SHA256 of API keys under the server secret, and the helpers around it, on Web Crypto only. */

const encoder = new TextEncoder();

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/** base64url (no padding) of bytes. */
export function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Cryptographically random bytes. */
export function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

/** Hashes keys with one imported HMAC key (importing once keeps each hash at a few microseconds). */
export class KeyHasher {
  private readonly key: ReturnType<typeof crypto.subtle.importKey>;

  constructor(secret: string) {
    this.key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  }

  /** Hex HMAC-SHA256 of `apiKey`. */
  async hash(apiKey: string): Promise<string> {
    const mac = await crypto.subtle.sign('HMAC', await this.key, encoder.encode(apiKey));
    return toHex(new Uint8Array(mac));
  }
}

/** Compares two strings in time that depends only on their lengths, so a mismatch position leaks nothing. */
export function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  return diff === 0;
}

/** The shape of a key: `xk_` + 12 hex id + `_` + 43 base64url secret characters. */
export const KEY_PATTERN = /^xk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

/** Makes a new random key; returns it with its id and display prefix. */
export function generateKey(): { key: string; id: string; prefix: string } {
  const id = toHex(randomBytes(6));
  const secret = toBase64Url(randomBytes(32));
  return { key: `xk_${id}_${secret}`, id, prefix: `xk_${id}_${secret.slice(0, 4)}` };
}
