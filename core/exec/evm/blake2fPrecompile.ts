/**
 * The BLAKE2F precompile (0x09, EIP-152) on our WebAssembly F (core/primitives/blake2f.ts) instead of the library's
 * 32-bit-halves JavaScript F, ~30x slower per round here (issue #18: stTimeConsuming/CALLBlake2f_MaxRounds asks
 * for 2^32 - 1 rounds). Input checks, gas and results are the library's `precompile09`: a 213-byte input whose last
 * byte is 0 or 1 (else OUT_OF_RANGE, all gas used), `blake2RoundGas` per round charged before computing (else
 * OUT_OF_GAS), 64 bytes of new state out.
 */
import { EVMError } from '@ethereumjs/evm';
import { blake2fCompress } from '../../primitives/blake2f.ts';

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

export function blake2fPrecompile(opts: PrecompileCall): PrecompileResult {
  const data = opts.data;
  if (data.length !== 213) return failed(opts.gasLimit, EVMError.errorMessages.OUT_OF_RANGE);
  const last = data[212];
  if (last !== 0 && last !== 1) return failed(opts.gasLimit, EVMError.errorMessages.OUT_OF_RANGE);
  const rounds = new DataView(data.buffer, data.byteOffset, 4).getUint32(0);
  const gasUsed = opts.common.param('blake2RoundGas') * BigInt(rounds);
  if (opts.gasLimit < gasUsed) return failed(opts.gasLimit, EVMError.errorMessages.OUT_OF_GAS);
  return { executionGasUsed: gasUsed, returnValue: blake2fCompress(rounds, data.subarray(4, 212), last === 1) };
}
