/**
 * The library's KECCAK256, CALLDATALOAD, CALLER, LOG0-4, RETURN and STOP handlers without its bigint ↔ bytes
 * helpers and, for the last two, without a throw (decision 0035). On the ERC-20 bench these ran once or more per
 * transfer each: the digest went to a bigint through a hex string, every topic through `setLengthLeft(bigIntToBytes)`
 * (a validated hex string and an array spread), and the frame's end was an exception (`trap(STOP)`) caught by the
 * loop. Here the words go through DataView reads and writes (wordOps.ts), and RETURN/STOP end the frame by moving the
 * program counter past the code, which both loops treat as the end (the result is the same: no error); with an access
 * witness (Verkle/binary tree), whose revert-on-STOP the library's loop does in its catch, they throw as before.
 */
import type { OpcodeEntry, RunState } from './internals.ts';
import { readWord, writeWord } from './wordOps.ts';

const EMPTY = new Uint8Array(0);

interface DataRunState extends RunState {
  stack: { pop(): bigint; popN(n: number): bigint[]; push(v: bigint): void };
  memory: RunState['memory'] & { read(offset: number, size: number, avoidCopy?: boolean): Uint8Array };
  env: RunState['env'] & { callData: Uint8Array; caller: { bytes: Uint8Array } };
  interpreter: {
    _result: { returnValue?: Uint8Array };
    log(data: Uint8Array, topicsCount: number, topics: Uint8Array[]): void;
  };
}

interface HashingCommon {
  customCrypto: { keccak256?: (data: Uint8Array) => Uint8Array };
}

/** KECCAK256 over a view of memory (the hash reads it at once; the library copies it first). */
function keccak(rs: DataRunState, common: HashingCommon, library: OpcodeEntry['opHandler']): void {
  const hash = common.customCrypto.keccak256;
  if (hash === undefined) {
    library(rs, common);
    return;
  }
  const [offset, length] = rs.stack.popN(2) as [bigint, bigint];
  const data = length === 0n ? EMPTY : rs.memory.read(Number(offset), Number(length), true);
  rs.stack.push(readWord(hash(data), 0));
}

const PADDED = new Uint8Array(32);

function calldataload(rs: DataRunState): void {
  const pos = rs.stack.pop();
  const data = rs.env.callData;
  if (pos >= BigInt(data.length)) {
    rs.stack.push(0n);
    return;
  }
  const i = Number(pos);
  if (i + 32 <= data.length) {
    rs.stack.push(readWord(data, i));
    return;
  }
  // Past the end: zeros on the right.
  PADDED.fill(0);
  PADDED.set(data.subarray(i));
  rs.stack.push(readWord(PADDED, 0));
}

const ADDRESS_WORD = new Uint8Array(32);

function caller(rs: DataRunState): void {
  ADDRESS_WORD.set(rs.env.caller.bytes, 12);
  rs.stack.push(readWord(ADDRESS_WORD, 0));
}

function log(rs: DataRunState): void {
  const [memOffset, memLength] = rs.stack.popN(2) as [bigint, bigint];
  const count = rs.opCode - 0xa0;
  const words = rs.stack.popN(count);
  const topics = words.map((word) => {
    const topic = new Uint8Array(32);
    writeWord(topic, 0, word);
    return topic;
  });
  const data = memLength === 0n ? EMPTY : rs.memory.read(Number(memOffset), Number(memLength));
  rs.interpreter.log(data, count, topics);
}

/** STOP ends the frame: past the code, both loops stop with no error. */
function stop(rs: DataRunState, common: unknown, library: OpcodeEntry['opHandler']): void {
  if (rs.env.accessWitness !== undefined) library(rs, common);
  else rs.programCounter = rs.code.length;
}

function returnOp(rs: DataRunState, common: unknown, library: OpcodeEntry['opHandler']): void {
  if (rs.env.accessWitness !== undefined) {
    library(rs, common);
    return;
  }
  const [offset, length] = rs.stack.popN(2) as [bigint, bigint];
  rs.interpreter._result.returnValue = length === 0n ? EMPTY : rs.memory.read(Number(offset), Number(length));
  rs.programCounter = rs.code.length;
}

type Handler = (rs: DataRunState, common: never, library: OpcodeEntry['opHandler']) => void;

const REPLACEMENTS: ReadonlyArray<readonly [number, Handler]> = [
  [0x00, stop as Handler],
  [0x20, keccak as Handler],
  [0x33, caller],
  [0x35, calldataload],
  [0xa0, log],
  [0xa1, log],
  [0xa2, log],
  [0xa3, log],
  [0xa4, log],
  [0xf3, returnOp as Handler],
];

/**
 * Swaps the handlers into one EVM's opcode table (over synchronous library handlers only; an entry whose shape is not
 * the library's is left alone). Each replacement keeps the library's handler for the cases it leaves to it.
 */
export function installDataOps(opcodeMap: OpcodeEntry[]): void {
  for (const [code, handler] of REPLACEMENTS) {
    const entry = opcodeMap[code];
    if (entry === undefined || entry.opcodeInfo.code !== code) continue;
    const library = entry.opHandler;
    // The library marks CALLER and CALLDATALOAD async, but their handlers are plain functions (as these are).
    if (library.constructor.name !== 'Function') continue;
    entry.opHandler = (rs, common) => handler(rs as DataRunState, common as never, library);
  }
}
