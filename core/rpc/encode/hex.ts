/** Tiny wrappers so encoders read like geth's field list. */
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';

/** DATA: 0x-prefixed lower-case hex. */
export const d = bytesToHex;
/** QUANTITY: 0x-prefixed, no leading zeros. */
export const q = (v: bigint | number): string => toQuantity(v);
/** DATA or null. */
export const dn = (v: Uint8Array | null | undefined): string | null => (v ? bytesToHex(v) : null);
