/**
 * geth's revert error (internal/ethapi newRevertError + abi.UnpackRevert): code 3, "execution reverted: <reason>"
 * when the data decodes as Error(string) or Panic(uint256); other data is named as anvil names it ("execution reverted:
 * custom error 0x<selector>"), no data is plain "execution reverted"; data = the revert bytes.
 */
import { bytesToHex } from '../primitives/hex.ts';
import { RpcError } from './errors.ts';
import { revertReason } from '../primitives/revertReason.ts';

export { revertReason };

/**
 * What the message says of revert data that is neither Error(string) nor Panic(uint256), as anvil words it: a custom
 * error's selector (and its arguments as hex), or the bytes themselves when fewer than four; null for no data.
 */
export function customErrorText(data: Uint8Array): string | null {
  if (data.length === 0) return null;
  if (data.length < 4) return `custom error bytes ${bytesToHex(data)}`;
  const selector = bytesToHex(data.subarray(0, 4));
  return data.length === 4 ? `custom error ${selector}` : `custom error ${selector}: ${bytesToHex(data.subarray(4))}`;
}

/** The wire error of a REVERT: the decoded reason (or custom error) in the message, the raw bytes as data. */
export function revertError(data: Uint8Array): RpcError {
  const reason = revertReason(data) ?? customErrorText(data);
  return new RpcError('EXECUTION_REVERTED', reason === null ? 'execution reverted' : `execution reverted: ${reason}`, bytesToHex(data));
}
