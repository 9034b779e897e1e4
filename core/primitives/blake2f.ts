/**
 * The BLAKE2b compression function F (RFC 7693 section 3.2) with a caller-chosen round count, as the BLAKE2F
 * precompile needs it (EIP-152), in WebAssembly built here at module load (issue #18). JavaScript has no 64-bit
 * integer type but bigint, so the library's F works on pairs of 32-bit halves with carries by hand, ~0.45 µs per
 * round on this host; in WebAssembly a round is a few dozen instructions. The rounds run on 128-bit SIMD (i64x2
 * add, xor, shifts and shuffles: four G functions in two registers per step, as BLAKE2's SSE implementations do):
 * a round is a chain of dependent steps, and the vector form shortens it against 64-bit scalar code that spills
 * its 32 words to the stack (CALLBlake2f_MaxRounds is 2^32 - 1 rounds of one call). The module is generated from
 * the algorithm's constants below (no binary checked in): `init`, `rounds` and `finish` over one page of memory
 * holding h, m and t little-endian as in the precompile's input, the working vector and the message schedule.
 */

/** BLAKE2b initialisation vector (RFC 7693 section 2.6). */
const IV = [
  0x6a09e667f3bcc908n,
  0xbb67ae8584caa73bn,
  0x3c6ef372fe94f82bn,
  0xa54ff53a5f1d36f1n,
  0x510e527fade682d1n,
  0x9b05688c2b3e6c1fn,
  0x1f83d9abfb41bd6bn,
  0x5be0cd19137e2179n,
];

/** Message word schedule (RFC 7693 section 2.7); round r uses row r mod 10. */
const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

// WebAssembly opcodes used below (core specification, section 5.4).
const OP = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  i64Load: 0x29,
  i64Store: 0x37,
  i32Const: 0x41,
  i64Const: 0x42,
  i32Eqz: 0x45,
  i32Sub: 0x6b,
  i64Add: 0x7c,
  i64Xor: 0x85,
  i64Rotr: 0x8a,
  void: 0x40,
} as const;

// 128-bit SIMD opcodes (prefix 0xfd, then the LEB128 sub-opcode; fixed-width SIMD proposal, in V8 since 9.1).
const SIMD = 0xfd;
const V128 = {
  load: [SIMD, 0x00],
  store: [SIMD, 0x0b],
  shuffle: [SIMD, 0x0d],
  or: [SIMD, 0x50],
  xor: [SIMD, 0x51],
  i64x2Shl: [SIMD, 0xcb, 0x01],
  i64x2ShrU: [SIMD, 0xcd, 0x01],
  i64x2Add: [SIMD, 0xce, 0x01],
} as const;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 of a 64-bit two's-complement value given as an unsigned bigint. */
function sleb64(u: bigint): number[] {
  let v = BigInt.asIntN(64, u);
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    const done = (v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0);
    out.push(done ? b : b | 0x80);
    if (done) return out;
  }
}

const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const name = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'latin1')];

// Memory: h at 0 (64 bytes), m at 64 (128), t at 192 (16), the working vector v at 256 (128), and from 512 the
// message words in the order the ten rounds of the schedule take them (10 x 16 words, 1,280 bytes), so a round
// adds them to its rows with plain 128-bit loads.
const H = 0;
const MSG = 64;
const T = 192;
const VEC = 256;
const SCHEDULE = 512;
// Locals of `init`: 0 its i32 argument, 1..16 v0..v15 (i64), 17..32 m0..m15 (i64).
const ARG = 0;
const V = (i: number): number => 1 + i;
const M = (i: number): number => 17 + i;

const get = (l: number): number[] => [OP.localGet, l];
const set = (l: number): number[] => [OP.localSet, l];
const load = (offset: number): number[] => [OP.i32Const, 0, OP.i64Load, 3, ...uleb(offset)];
/** Stores local `l` at `offset`. */
const store = (offset: number, l: number): number[] => [OP.i32Const, 0, OP.localGet, l, OP.i64Store, 3, ...uleb(offset)];

/**
 * The ten rounds' message words in the order `round` adds them: per round, the column step's (x0, x1), (x2, x3),
 * (y0, y1), (y2, y3) and the diagonal step's four pairs likewise, where G on column/diagonal i takes x_i = m[s[2i]]
 * and y_i = m[s[2i + 1]]; the diagonal step's lane j holds diagonal j + 3 (mod 4).
 */
function scheduleWord(r: number, i: number): number {
  const s = SIGMA[r] as number[];
  const step = i >> 3; // 0: columns, 1: diagonals
  const k = i & 7; // 0..3: x of lane 0..3, 4..7: y of lane 0..3
  // In the diagonal step lane j runs diagonal j + 3 (mod 4): row b stays put (see `round`).
  const g = step === 0 ? k & 3 : ((k & 3) + 3) & 3;
  return s[step * 8 + g * 2 + (k >> 2)] as number;
}

/** `init(final)`: v = h ‖ IV, v12 ^= t0, v13 ^= t1, with the final-block flag v14 = ~v14; the message schedule. */
function initBody(): number[] {
  const code: number[] = [];
  for (let i = 0; i < 8; i++) code.push(...load(H + i * 8), ...set(V(i)));
  for (let i = 0; i < 8; i++) code.push(OP.i64Const, ...sleb64(IV[i] as bigint), ...set(V(8 + i)));
  code.push(...get(V(12)), ...load(T), OP.i64Xor, ...set(V(12)));
  code.push(...get(V(13)), ...load(T + 8), OP.i64Xor, ...set(V(13)));
  code.push(...get(ARG), OP.if, OP.void, ...get(V(14)), OP.i64Const, ...sleb64(-1n), OP.i64Xor, ...set(V(14)), OP.end);
  for (let i = 0; i < 16; i++) code.push(...store(VEC + i * 8, V(i)));
  for (let i = 0; i < 16; i++) code.push(...load(MSG + i * 8), ...set(M(i)));
  for (let r = 0; r < 10; r++) for (let i = 0; i < 16; i++) code.push(...store(SCHEDULE + (r * 16 + i) * 8, M(scheduleWord(r, i))));
  return [...code, OP.end];
}

// The rounds function keeps v in eight 128-bit locals (after its i32 argument), two words each, as rows of the
// 4x4 matrix split in halves: a = (v0, v1 | v2, v3), b = (v4, v5 | v6, v7), c = (v8 .. v11), d = (v12 .. v15).
// One G step then runs the four columns' G at once, two lanes per half. For the diagonal step, row b stays put
// and a, c and d move around it: a right by one word, c left by one, d by two (its halves renamed), so lane j
// runs diagonal j + 3 (mod 4), and back after. b is the last row a G step computes and the first the next one
// reads (a + m + b), so a shuffle of b would sit on the round's chain of dependent steps; a and c are ready
// earlier and their shuffles run beside it (rotating b, c and d instead measured ~5 % slower a round).
const ROW = { aLo: 1, aHi: 2, bLo: 3, bHi: 4, cLo: 5, cHi: 6, dLo: 7, dHi: 8 } as const;

const vload = (offset: number): number[] => [OP.i32Const, 0, ...V128.load, 4, ...uleb(offset)];
const vstore = (offset: number, l: number): number[] => [OP.i32Const, 0, OP.localGet, l, ...V128.store, 4, ...uleb(offset)];
/** Lane bytes of a shuffle that rotates each 64-bit lane right by `bytes` bytes. */
const rotrBytes = (bytes: number): number[] => [0, 8].flatMap((lane) => [0, 1, 2, 3, 4, 5, 6, 7].map((k) => lane + ((k + bytes) % 8)));
/** The second word of `p` then the first of `q`. */
const HIGH_LOW = [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23];

/**
 * Rotates the value on the stack (both 64-bit lanes) right by n, through local `tmp`: 32 and 16 as byte shuffles,
 * 24 and 63 as two shifts and an or (for 24 that measured faster than the byte shuffle here: 11.8 vs 12.8 ns a
 * round, alternating in one process).
 */
function vrotr(n: number, tmp: number): number[] {
  if (n === 32 || n === 16) return [...set(tmp), ...get(tmp), ...get(tmp), ...V128.shuffle, ...rotrBytes(n / 8)];
  // (x << (64 - n)) | (x >>> n)
  return [...set(tmp), ...get(tmp), OP.i32Const, 64 - n, ...V128.i64x2Shl, ...get(tmp), OP.i32Const, n, ...V128.i64x2ShrU, ...V128.or];
}

type Rows = [number, number, number, number, number, number, number, number];

/**
 * One G step on rows (a, b, c, d) given as [aLo, aHi, bLo, bHi, cLo, cHi, dLo, dHi] locals, with the message pairs
 * at `msg` (x halves then y halves, 16 bytes each). a + m is added before b, so only one add waits on b.
 */
function gStep(rows: Rows, msg: number): number[] {
  const [aLo, aHi, bLo, bHi, cLo, cHi, dLo, dHi] = rows;
  const half = (a: number, b: number, c: number, d: number, x: number, y: number): number[][] => [
    [...get(a), ...vload(x), ...V128.i64x2Add, ...get(b), ...V128.i64x2Add, ...set(a)],
    [...get(d), ...get(a), ...V128.xor, ...vrotr(32, d), ...set(d)],
    [...get(c), ...get(d), ...V128.i64x2Add, ...set(c)],
    [...get(b), ...get(c), ...V128.xor, ...vrotr(24, b), ...set(b)],
    [...get(a), ...vload(y), ...V128.i64x2Add, ...get(b), ...V128.i64x2Add, ...set(a)],
    [...get(d), ...get(a), ...V128.xor, ...vrotr(16, d), ...set(d)],
    [...get(c), ...get(d), ...V128.i64x2Add, ...set(c)],
    [...get(b), ...get(c), ...V128.xor, ...vrotr(63, b), ...set(b)],
  ];
  const lo = half(aLo, bLo, cLo, dLo, msg, msg + 32);
  const hi = half(aHi, bHi, cHi, dHi, msg + 16, msg + 48);
  return lo.flatMap((ops, i) => [...ops, ...(hi[i] as number[])]);
}

/** (p1, q0) into `out` for each [out, p, q], through the spare locals so no input is overwritten early. */
function pairs(moves: [number, number, number][], spare: number): number[] {
  const code: number[] = [];
  moves.forEach(([, p, q], i) => code.push(...get(p), ...get(q), ...V128.shuffle, ...HIGH_LOW, ...set(spare + i)));
  moves.forEach(([out], i) => code.push(...get(spare + i), ...set(out)));
  return code;
}

const SPARE = 9; // four more 128-bit locals for the shuffles' outputs

function round(r: number): number[] {
  const { aLo, aHi, bLo, bHi, cLo, cHi, dLo, dHi } = ROW;
  const msg = SCHEDULE + r * 128;
  return [
    ...gStep([aLo, aHi, bLo, bHi, cLo, cHi, dLo, dHi], msg),
    // diagonalise: a = (v3, v0 | v1, v2), c = (v9, v10 | v11, v8); d = (v14, v15 | v12, v13) by name below
    ...pairs(
      [
        [aLo, aHi, aLo],
        [aHi, aLo, aHi],
        [cLo, cLo, cHi],
        [cHi, cHi, cLo],
      ],
      SPARE,
    ),
    ...gStep([aLo, aHi, bLo, bHi, cLo, cHi, dHi, dLo], msg + 64),
    // back: a = (v0, v1 | v2, v3) from (v3, v0 | v1, v2), c = (v8, v9 | v10, v11) from (v9, v10 | v11, v8)
    ...pairs(
      [
        [aLo, aLo, aHi],
        [aHi, aHi, aLo],
        [cLo, cHi, cLo],
        [cHi, cLo, cHi],
      ],
      SPARE,
    ),
  ];
}

/**
 * `rounds(n)`: n rounds on v, the first with schedule row 0 (callers split a long run into multiples of 10, so
 * each call starts where the schedule does). A short call per chunk lets V8 tier the function up from its baseline
 * compiler, which one call of 2^32 rounds never would.
 */
function roundsBody(): number[] {
  const code: number[] = [];
  const rows = Object.values(ROW);
  rows.forEach((l, i) => code.push(...vload(VEC + i * 16), ...set(l)));
  // block { loop { 10 times: if n == 0 break; n -= 1; round(r) } continue } }
  code.push(OP.block, OP.void, OP.loop, OP.void);
  for (let r = 0; r < 10; r++) {
    code.push(...get(ARG), OP.i32Eqz, OP.brIf, 1);
    code.push(...get(ARG), OP.i32Const, 1, OP.i32Sub, ...set(ARG));
    code.push(...round(r));
  }
  code.push(OP.br, 0, OP.end, OP.end);
  rows.forEach((l, i) => code.push(...vstore(VEC + i * 16, l)));
  return [...code, OP.end];
}

/** `finish()`: h[i] ^= v[i] ^ v[i + 8]. */
function finishBody(): number[] {
  const code: number[] = [];
  for (let i = 0; i < 8; i++) {
    code.push(OP.i32Const, 0, ...load(H + i * 8), ...load(VEC + i * 8), OP.i64Xor, ...load(VEC + 64 + i * 8), OP.i64Xor);
    code.push(OP.i64Store, 3, ...uleb(H + i * 8));
  }
  return [...code, OP.end];
}

/** The module's bytes: three functions of type (i32) -> () and one exported page of memory. */
export function blake2fModuleBytes(): Uint8Array {
  const I32 = 0x7f;
  const I64 = 0x7e;
  const types = section(1, vec([[0x60, ...vec([[I32]]), ...vec([])]]));
  const funcs = section(3, vec([[0], [0], [0]]));
  const memory = section(5, vec([[0x00, 1]]));
  const exports = section(
    7,
    vec([
      [...name('init'), 0x00, 0],
      [...name('rounds'), 0x00, 1],
      [...name('finish'), 0x00, 2],
      [...name('memory'), 0x02, 0],
    ]),
  );
  const V128_TYPE = 0x7b;
  const fn = (b: number[], locals: number[][]): number[] => {
    const f = [...vec(locals), ...b];
    return [...uleb(f.length), ...f];
  };
  const code = section(10, vec([fn(initBody(), [[32, I64]]), fn(roundsBody(), [[SPARE + 3, V128_TYPE]]), fn(finishBody(), [])]));
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...types, ...funcs, ...memory, ...exports, ...code]);
}

interface Blake2fExports {
  init(final: number): void;
  rounds(n: number): void;
  finish(unused: number): void;
  memory: { buffer: ArrayBuffer };
}

/** The WebAssembly API of the runtime (the project's TypeScript lib settings do not declare it). */
const wasm = (
  globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (m: object) => { exports: unknown } } }
).WebAssembly;

/** Rounds per call into the module: a multiple of 10 (the schedule's period). */
const CHUNK = 100_000;
let instance: Blake2fExports | undefined;

/**
 * F over the precompile's input layout: `hmt` is h (64 bytes), m (128) and t (16) as they follow the round count in
 * the input (208 bytes); `rounds` up to 2^32 - 1; returns the new h (64 bytes, little-endian words).
 */
export function blake2fCompress(rounds: number, hmt: Uint8Array, final: boolean): Uint8Array {
  instance ??= new wasm.Instance(new wasm.Module(blake2fModuleBytes())).exports as Blake2fExports;
  const f = instance;
  new Uint8Array(f.memory.buffer, 0, 208).set(hmt.subarray(0, 208));
  f.init(final ? 1 : 0);
  for (let left = rounds; left > 0; left -= CHUNK) f.rounds(Math.min(left, CHUNK));
  f.finish(0);
  return new Uint8Array(f.memory.buffer, 0, 64).slice();
}
