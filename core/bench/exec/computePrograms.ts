/**
 * The compute-heavy EVM programs of `bench:exec --only compute` (issue #18): the shapes of ethereum/tests'
 * VMTests/vmPerformance (loopMul: add, div+add and mulmod loops; loopExp: EXP in a loop) and stTimeConsuming
 * (static_Call50000_sha256: a loop of STATICCALLs to the SHA-256 precompile; CALLBlake2f_MaxRounds: one BLAKE2
 * F call with many rounds), hand-assembled here at a size this bench can repeat. Each program runs to completion
 * and RETURNs one word, so a result can be compared across interpreters.
 */

/** One program: its code, calldata, and the gas the message gets. */
export interface ComputeProgram {
  name: string;
  /** What it is shaped after. */
  shape: string;
  code: Uint8Array;
  data: Uint8Array;
  gasLimit: bigint;
}

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const word = (n: bigint): string => n.toString(16).padStart(64, '0');
const u16 = (n: number): string => n.toString(16).padStart(4, '0');
const u32 = (n: number): string => n.toString(16).padStart(8, '0');

/**
 * `iterations` times `x = body(x)` with x on the stack: PUSH32 x0, PUSH4 n, then
 * `loop: JUMPDEST DUP1 ISZERO PUSH2 end JUMPI SWAP1 <body> SWAP1 PUSH1 1 SWAP1 SUB PUSH2 loop JUMP`,
 * `end: JUMPDEST POP PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN` (returns the final x).
 */
function loop(x0: bigint, iterations: number, body: string): Uint8Array {
  const bodyBytes = body.replace(/\s+/g, '').length / 2;
  const start = 33 + 5; // PUSH32 x0, PUSH4 n
  const end = start + 1 + 1 + 1 + 3 + 1 + 1 + bodyBytes + 1 + 2 + 1 + 1 + 3 + 1;
  return hex(
    `7f${word(x0)} 63${u32(iterations)}` +
      `5b 80 15 61${u16(end)} 57 90 ${body} 90 6001 90 03 61${u16(start)} 56` +
      `5b 50 6000 52 6020 6000 f3`,
  );
}

const MODULUS = (1n << 255n) - 19n;
const Y = 0x8edad8b55b1586805ea8c245d8c16b06a5102b791fc6eb60693731c0677bf501n;
const ODD = (1n << 256n) - 0x1234567n;

/** The BLAKE2 F input (EIP-152): rounds, h, m, t, f; values are arbitrary, only the round count sets the cost. */
function blake2fInput(rounds: number): Uint8Array {
  return hex(`${u32(rounds)}${'6a'.repeat(64)}${'61626300'.padEnd(256, '0')}${'03'.padEnd(32, '0')}01`);
}

/** The programs, scaled by `scale` (1 = the default size; the tests' own sizes are about 10-40x larger). */
export function computePrograms(scale = 1): ComputeProgram[] {
  const n = (base: number): number => Math.max(1, Math.round(base * scale));
  const gas = 10n ** 12n;
  return [
    {
      name: 'loopAdd',
      shape: 'vmPerformance/loopMul add-10M',
      code: loop(1n, n(500_000), `7f${word(Y)} 01`),
      data: new Uint8Array(),
      gasLimit: gas,
    },
    {
      name: 'loopDivAdd',
      shape: 'vmPerformance/loopMul divadd-10M',
      code: loop(ODD, n(300_000), `7f${word(3n)} 90 04 7f${word(Y)} 01`),
      data: new Uint8Array(),
      gasLimit: gas,
    },
    {
      name: 'loopMulmod',
      shape: 'vmPerformance/loopMul mulmod-2M',
      code: loop(ODD % MODULUS, n(200_000), `7f${word(MODULUS)} 7f${word(Y)} 82 09 90 50`),
      data: new Uint8Array(),
      gasLimit: gas,
    },
    {
      name: 'loopExp',
      shape: 'vmPerformance/loopExp',
      code: loop(ODD, n(100_000), `7f${word(Y)} 90 0a`),
      data: new Uint8Array(),
      gasLimit: gas,
    },
    {
      name: 'callSha256',
      shape: 'stTimeConsuming/static_Call50000_sha256',
      // STATICCALL(gas, 0x02, 0, 32, 0, 32); POP
      code: loop(0n, n(20_000), '6020 6000 6020 6000 6002 5a fa 50'),
      data: new Uint8Array(),
      gasLimit: gas,
    },
    {
      name: 'blake2f',
      shape: 'stTimeConsuming/CALLBlake2f_MaxRounds (2^32-1 rounds there)',
      // CALLDATACOPY(0, 0, size); CALL(gas, 0x09, 0, 0, size, 1000, 64); POP; RETURN(1000, 32)
      code: hex('36 6000 6000 37 6040 6103e8 36 6000 6000 6009 5a f1 50 6020 6103e8 f3'),
      data: blake2fInput(n(1_000_000)),
      gasLimit: gas,
    },
  ];
}
