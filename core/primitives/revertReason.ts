/**
 * Solidity's revert data as geth's abi.UnpackRevert reads it: Error(string) gives its reason, Panic(uint256) the
 * panic's name. Shared by the RPC's revert errors and the call tracer's revertReason.
 */
const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';

/** Solidity panic codes as geth names them. */
const PANIC_REASONS: Readonly<Record<number, string>> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
};

/** Decoded reason of revert data, or null when it is neither Error(string) nor Panic(uint256). */
export function revertReason(data: Uint8Array): string | null {
  if (data.length < 4) return null;
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const selector = buf.subarray(0, 4).toString('hex');
  if (selector === PANIC_SELECTOR && data.length === 36) {
    const code = BigInt('0x' + buf.subarray(4).toString('hex'));
    return code < 256n && PANIC_REASONS[Number(code)] !== undefined
      ? PANIC_REASONS[Number(code)]
      : `unknown panic code: 0x${code.toString(16)}`;
  }
  if (selector !== ERROR_SELECTOR || data.length < 4 + 64) return null;
  const offset = BigInt('0x' + buf.subarray(4, 36).toString('hex'));
  if (offset + 32n > BigInt(data.length - 4)) return null;
  const start = 4 + Number(offset);
  const length = BigInt('0x' + buf.subarray(start, start + 32).toString('hex'));
  if (BigInt(start + 32) + length > BigInt(data.length)) return null;
  return buf.subarray(start + 32, start + 32 + Number(length)).toString('utf8');
}
