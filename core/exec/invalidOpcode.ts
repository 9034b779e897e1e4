/**
 * The message of an opcode that a later fork than the block's defines: geth says only "invalid opcode"; a Solidity
 * developer whose compiler targets a newer EVM than the chain runs needs to know which opcode and which fork
 * (`invalid opcode: MCOPY (0x5e) is not active before Cancun`). Bytes no fork defines keep the plain message.
 */
import { isForkActive, type Fork } from '../chain/forks.ts';

/** Opcodes added after Frontier: byte -> name and the fork that added it. */
const ADDED: ReadonlyMap<number, readonly [string, Fork]> = new Map([
  [0xf4, ['DELEGATECALL', 'Homestead']],
  [0x3d, ['RETURNDATASIZE', 'Byzantium']],
  [0x3e, ['RETURNDATACOPY', 'Byzantium']],
  [0xfa, ['STATICCALL', 'Byzantium']],
  [0xfd, ['REVERT', 'Byzantium']],
  [0x1b, ['SHL', 'Constantinople']],
  [0x1c, ['SHR', 'Constantinople']],
  [0x1d, ['SAR', 'Constantinople']],
  [0x3f, ['EXTCODEHASH', 'Constantinople']],
  [0xf5, ['CREATE2', 'Constantinople']],
  [0x46, ['CHAINID', 'Istanbul']],
  [0x47, ['SELFBALANCE', 'Istanbul']],
  [0x48, ['BASEFEE', 'London']],
  [0x5f, ['PUSH0', 'Shanghai']],
  [0x49, ['BLOBHASH', 'Cancun']],
  [0x4a, ['BLOBBASEFEE', 'Cancun']],
  [0x5c, ['TLOAD', 'Cancun']],
  [0x5d, ['TSTORE', 'Cancun']],
  [0x5e, ['MCOPY', 'Cancun']],
  [0x1e, ['CLZ', 'Osaka']],
]);

/** The EVM's error text for a failed top-level frame, naming the opcode and its fork when `fork` predates it. */
export function describeEvmError(error: string | undefined, opCode: number | undefined, fork: Fork): string | undefined {
  if (error !== 'invalid opcode' || opCode === undefined) return error;
  const added = ADDED.get(opCode);
  if (added === undefined || isForkActive(fork, added[1])) return error;
  return `invalid opcode: ${added[0]} (0x${opCode.toString(16).padStart(2, '0')}) is not active before ${added[1]}`;
}
