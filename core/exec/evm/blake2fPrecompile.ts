/**
 * The BLAKE2F precompile (0x09, EIP-152) on our WebAssembly F (core/primitives/blake2f.ts) instead of the library's
 * 32-bit-halves JavaScript F, ~30x slower per round here (issue #18: stTimeConsuming/CALLBlake2f_MaxRounds asks
 * for 2^32 - 1 rounds). Input checks, gas and results are the library's `precompile09`: a 213-byte input whose last
 * byte is 0 or 1 (else OUT_OF_RANGE, all gas used), `blake2RoundGas` per round charged before computing (else
 * OUT_OF_GAS), 64 bytes of new state out. A heavy call's result is kept by its exact input (blake2fMemo.ts): the
 * gas is charged as before, only F is not run again.
 */
import { EVMError } from '@ethereumjs/evm';
import { blake2fCompress } from '../../primitives/blake2f.ts';
import { Blake2fMemo, MEMO_MIN_ROUNDS } from './blake2fMemo.ts';

/** What the library passes a precompile (its `PrecompileInput`), as far as this one reads it. */
export interface PrecompileCall {
  data: Uint8Array;
  gasLimit: bigint;
  common: { param(name: string): bigint };
}

/** What a precompile returns (the library's `ExecResult` fields it reads). */
export interface PrecompileResult {
  returnValue: Uint8Array;
  executionGasUsed: bigint;
  exceptionError?: EVMError;
}

const failed = (gasLimit: bigint, error: ConstructorParameters<typeof EVMError>[0]): PrecompileResult => ({
  returnValue: new Uint8Array(0),
  executionGasUsed: gasLimit,
  exceptionError: new EVMError(error),
});

/** This thread's memo of heavy results (each worker thread of the RPC execution pool has its own). */
export const blake2fMemo = new Blake2fMemo();

export function blake2fPrecompile(opts: PrecompileCall): PrecompileResult {
  const data = opts.data;
  if (data.length !== 213) return failed(opts.gasLimit, EVMError.errorMessages.OUT_OF_RANGE);
  const last = data[212];
  if (last !== 0 && last !== 1) return failed(opts.gasLimit, EVMError.errorMessages.OUT_OF_RANGE);
  const rounds = new DataView(data.buffer, data.byteOffset, 4).getUint32(0);
  const gasUsed = opts.common.param('blake2RoundGas') * BigInt(rounds);
  if (opts.gasLimit < gasUsed) return failed(opts.gasLimit, EVMError.errorMessages.OUT_OF_GAS);
  return { executionGasUsed: gasUsed, returnValue: compress(rounds, data) };
}

function compress(rounds: number, data: Uint8Array): Uint8Array {
  if (rounds < MEMO_MIN_ROUNDS) return blake2fCompress(rounds, data.subarray(4, 212), data[212] === 1);
  const known = blake2fMemo.get(data);
  if (known !== undefined) return known;
  const out = blake2fCompress(rounds, data.subarray(4, 212), data[212] === 1);
  blake2fMemo.put(data, out);
  return out;
}
