/**
 * The BLAKE2b compression function F (RFC 7693 section 3.2) with a caller-chosen round count, as the BLAKE2F
 * precompile needs it (EIP-152), in WebAssembly built here at module load (issue #18). JavaScript has no 64-bit
 * integer type but bigint, so the library's F works on pairs of 32-bit halves with carries by hand, ~0.45 µs per
 * round on this host; WebAssembly's i64 add, xor and rotate make a round a few dozen instructions. The module is
 * generated from the algorithm's constants below (no binary checked in): `init`, `rounds` and `finish` over one
 * page of memory holding h, m and t little-endian as in the precompile's input, and the working vector.
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

// Memory: h at 0 (64 bytes), m at 64 (128), t at 192 (16), the working vector v at 256 (128).
const H = 0;
const MSG = 64;
const T = 192;
const VEC = 256;
// Locals of every function: 0 its i32 argument, 1..16 v0..v15 (i64), 17..32 m0..m15 (i64).
const ARG = 0;
const V = (i: number): number => 1 + i;
const M = (i: number): number => 17 + i;

const get = (l: number): number[] => [OP.localGet, l];
const set = (l: number): number[] => [OP.localSet, l];
const load = (offset: number): number[] => [OP.i32Const, 0, OP.i64Load, 3, ...uleb(offset)];
/** Stores local `l` at `offset`. */
const store = (offset: number, l: number): number[] => [OP.i32Const, 0, OP.localGet, l, OP.i64Store, 3, ...uleb(offset)];

function g(a: number, b: number, c: number, d: number, x: number, y: number): number[] {
  const rot = (n: number): number[] => [OP.i64Const, ...sleb64(BigInt(n)), OP.i64Rotr];
  return [
    ...get(V(a)),
    ...get(V(b)),
    OP.i64Add,
    ...get(M(x)),
    OP.i64Add,
    ...set(V(a)),
    ...get(V(d)),
    ...get(V(a)),
    OP.i64Xor,
    ...rot(32),
    ...set(V(d)),
    ...get(V(c)),
    ...get(V(d)),
    OP.i64Add,
    ...set(V(c)),
    ...get(V(b)),
    ...get(V(c)),
    OP.i64Xor,
    ...rot(24),
    ...set(V(b)),
    ...get(V(a)),
    ...get(V(b)),
    OP.i64Add,
    ...get(M(y)),
    OP.i64Add,
    ...set(V(a)),
    ...get(V(d)),
    ...get(V(a)),
    OP.i64Xor,
    ...rot(16),
    ...set(V(d)),
    ...get(V(c)),
    ...get(V(d)),
    OP.i64Add,
    ...set(V(c)),
    ...get(V(b)),
    ...get(V(c)),
    OP.i64Xor,
    ...rot(63),
    ...set(V(b)),
  ];
}

function round(r: number): number[] {
  const s = SIGMA[r % 10] as number[];
  const at = (i: number): number => s[i] as number;
  return [
    ...g(0, 4, 8, 12, at(0), at(1)),
    ...g(1, 5, 9, 13, at(2), at(3)),
    ...g(2, 6, 10, 14, at(4), at(5)),
    ...g(3, 7, 11, 15, at(6), at(7)),
    ...g(0, 5, 10, 15, at(8), at(9)),
    ...g(1, 6, 11, 12, at(10), at(11)),
    ...g(2, 7, 8, 13, at(12), at(13)),
    ...g(3, 4, 9, 14, at(14), at(15)),
  ];
}

/** `init(final)`: v = h ‖ IV, v12 ^= t0, v13 ^= t1, and with the final-block flag v14 = ~v14. */
function initBody(): number[] {
  const code: number[] = [];
  for (let i = 0; i < 8; i++) code.push(...load(H + i * 8), ...set(V(i)));
  for (let i = 0; i < 8; i++) code.push(OP.i64Const, ...sleb64(IV[i] as bigint), ...set(V(8 + i)));
  code.push(...get(V(12)), ...load(T), OP.i64Xor, ...set(V(12)));
  code.push(...get(V(13)), ...load(T + 8), OP.i64Xor, ...set(V(13)));
  code.push(...get(ARG), OP.if, OP.void, ...get(V(14)), OP.i64Const, ...sleb64(-1n), OP.i64Xor, ...set(V(14)), OP.end);
  for (let i = 0; i < 16; i++) code.push(...store(VEC + i * 8, V(i)));
  return [...code, OP.end];
}

/**
 * `rounds(n)`: n rounds on v, the first with schedule row 0 (callers split a long run into multiples of 10, so
 * each call starts where the schedule does). A short call per chunk lets V8 tier the function up from its baseline
 * compiler, which one call of 2^32 rounds never would.
 */
function roundsBody(): number[] {
  const code: number[] = [];
  for (let i = 0; i < 16; i++) code.push(...load(VEC + i * 8), ...set(V(i)));
  for (let i = 0; i < 16; i++) code.push(...load(MSG + i * 8), ...set(M(i)));
  // block { loop { 10 times: if n == 0 break; n -= 1; round(r) } continue } }
  code.push(OP.block, OP.void, OP.loop, OP.void);
  for (let r = 0; r < 10; r++) {
    code.push(...get(ARG), OP.i32Eqz, OP.brIf, 1);
    code.push(...get(ARG), OP.i32Const, 1, OP.i32Sub, ...set(ARG));
    code.push(...round(r));
  }
  code.push(OP.br, 0, OP.end, OP.end);
  for (let i = 0; i < 16; i++) code.push(...store(VEC + i * 8, V(i)));
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
  const fn = (b: number[]): number[] => {
    const f = [...vec([[32, I64]]), ...b];
    return [...uleb(f.length), ...f];
  };
  const code = section(10, vec([fn(initBody()), fn(roundsBody()), fn(finishBody())]));
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
