/** Subscription and filter ids as geth makes them: 16 random bytes as a 0x quantity. */
import { randomBytes } from 'node:crypto';

export function newId(): string {
  const hex = randomBytes(16).toString('hex').replace(/^0+/, '');
  return '0x' + (hex === '' ? '0' : hex);
}
