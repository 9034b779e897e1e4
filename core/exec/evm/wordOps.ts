/**
 * Byte-for-byte equivalents of the library's MLOAD and MSTORE handlers without its bigint ↔ bytes helpers
 * (decision 0027). @ethereumjs/util's `setLengthLeft(bigIntToBytes(word), 32)` goes through a validated hex string
 * and an array spread: ~2 µs per MSTORE on this host, against ~0.1 µs for four 64-bit DataView writes. Also the
 * memory-expansion gas of MLOAD, MSTORE and MSTORE8 (`installSyncMemoryGas`): the library's formula, made synchronous.
 * Every other gas handler and memory growth stay the library's (SLOAD and SSTORE: storageOps.ts).
 */
import type { CommonLike, OpcodeEntry, RunState } from './internals.ts';

const MASK_64 = (1n << 64n) - 1n;

interface WordRunState extends RunState {
  stack: { pop(): bigint; popN(n: number): bigint[]; push(v: bigint): void };
  memory: RunState['memory'] & { extend(offset: number, size: number): void };
}

// The last view made: a frame's memory buffer is read and written through one view for the frame's life.
let viewed: Uint8Array | undefined;
let lastView: DataView = new DataView(new ArrayBuffer(0));

function view(bytes: Uint8Array): DataView {
  if (bytes !== viewed) {
    viewed = bytes;
    lastView = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  return lastView;
}

/**
 * One word and its view for small arrays (slot keys and values, hashes, log topics, short calldata), copied in or out:
 * those alternate with the frame's memory, so the one cached view above was remade for nearly every word, and a
 * DataView per word cost ~2.5x the copy (a 200-call callTracer trace spent ~4 % making them, issue #15).
 */
const WORD = new Uint8Array(32);
const WORD_VIEW = new DataView(WORD.buffer);
/** Arrays up to this size go through WORD unless they are the viewed one. */
const SMALL = 256;

function setWord(dv: DataView, offset: number, word: bigint): void {
  dv.setBigUint64(offset + 24, word & MASK_64);
  dv.setBigUint64(offset + 16, (word >> 64n) & MASK_64);
  dv.setBigUint64(offset + 8, (word >> 128n) & MASK_64);
  dv.setBigUint64(offset, word >> 192n);
}

function getWord(dv: DataView, offset: number): bigint {
  return (
    (dv.getBigUint64(offset) << 192n) |
    (dv.getBigUint64(offset + 8) << 128n) |
    (dv.getBigUint64(offset + 16) << 64n) |
    dv.getBigUint64(offset + 24)
  );
}

/** Writes `word` (< 2^256) big-endian into 32 bytes at `offset`. */
export function writeWord(target: Uint8Array, offset: number, word: bigint): void {
  if (target !== viewed && target.length <= SMALL && offset >= 0 && offset + 32 <= target.length) {
    setWord(WORD_VIEW, 0, word);
    target.set(WORD, offset);
    return;
  }
  setWord(view(target), offset, word);
}

/** Reads 32 bytes at `offset` as a big-endian word. */
export function readWord(source: Uint8Array, offset: number): bigint {
  if (source !== viewed && source.length <= SMALL && offset >= 0 && offset + 32 <= source.length) {
    for (let i = 0; i < 32; i++) WORD[i] = source[offset + i] as number;
    return getWord(WORD_VIEW, 0);
  }
  return getWord(view(source), offset);
}

/** A big-endian byte string as a bigint (storage values: at most 32 bytes, minimal). */
export function bytesToWord(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  if (bytes.length > 32) return BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex')}`);
  // Right-aligned in WORD, zeros before it.
  const pad = 32 - bytes.length;
  WORD.fill(0, 0, pad);
  for (let i = 0; i < bytes.length; i++) WORD[pad + i] = bytes[i] as number;
  return getWord(WORD_VIEW, 0);
}

function mload(rs: WordRunState): void {
  const pos = Number(rs.stack.pop());
  rs.memory.extend(pos, 32);
  rs.stack.push(readWord(rs.memory._store, pos));
}

function mstore(rs: WordRunState): void {
  const [offset, word] = rs.stack.popN(2) as [bigint, bigint];
  const pos = Number(offset);
  rs.memory.extend(pos, 32);
  writeWord(rs.memory._store, pos, word);
}

const REPLACEMENTS: ReadonlyMap<number, { handler: (rs: WordRunState) => unknown; isAsync: boolean }> = new Map([
  [0x51, { handler: mload, isAsync: false }],
  [0x52, { handler: mstore, isAsync: false }],
]);

/**
 * The library's `subMemUsage` (opcodes/util.ts): memory expansion gas for touching `length` bytes at `offset`,
 * charged once per new high-water mark, with the fork's `memoryGas` and `quadCoefficientDivGas` read once.
 */
function memoryGas(fee: bigint, quad: bigint): (rs: RunState, offset: bigint, length: bigint) => bigint {
  return (rs, offset, length) => {
    if (length === 0n) return 0n;
    const end = offset + length;
    const words = end % 32n === 0n ? end / 32n : end / 32n + 1n;
    if (words <= rs.memoryWordCount) return 0n;
    let cost = words * fee + (words * words) / quad;
    if (cost > rs.highestMemCost) {
      const previous = rs.highestMemCost;
      rs.highestMemCost = cost;
      cost -= previous;
    }
    rs.memoryWordCount = words;
    return cost;
  };
}

type Peekable = RunState & { stack: { peek(n?: number): bigint[] } };

/**
 * Promise-free gas rules for MLOAD, MSTORE and MSTORE8 (the library's are async functions with no await inside, so
 * the loop would pay a promise per memory access for a few bigint operations).
 */
export function installSyncMemoryGas(opcodeMap: OpcodeEntry[], common: CommonLike): void {
  const mem = memoryGas(common.param('memoryGas'), common.param('quadCoefficientDivGas'));
  const sizes: ReadonlyArray<readonly [number, bigint]> = [
    [0x51, 32n],
    [0x52, 32n],
    [0x53, 1n],
  ];
  for (const [code, size] of sizes) {
    const entry = opcodeMap[code];
    if (entry === undefined || entry.opcodeInfo.code !== code || !entry.opcodeInfo.dynamicGas) continue;
    entry.syncGasHandler = (rs, gas) => gas + mem(rs, (rs as Peekable).stack.peek()[0] as bigint, size);
  }
}

/**
 * Swaps the two handlers into one EVM's opcode table (its entries are per EVM; a hardfork change rebuilds the
 * table with the library's handlers). The node never passes `customOpcodes`; an entry whose shape is not the
 * library's is left alone.
 */
export function installWordOps(opcodeMap: OpcodeEntry[]): void {
  for (const [code, { handler, isAsync }] of REPLACEMENTS) {
    const entry = opcodeMap[code];
    if (entry === undefined || entry.opcodeInfo.code !== code || entry.opcodeInfo.isAsync !== isAsync) continue;
    entry.opHandler = handler as unknown as OpcodeEntry['opHandler'];
  }
}
