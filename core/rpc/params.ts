/**
 * Strict parameter decoders with geth's messages (go-ethereum common/hexutil and rpc/types.go), so a client sees
 * "invalid argument 0: hex string without 0x prefix" exactly as from geth. A decoder throws ParamError with the
 * reason; `parsePositional` adds the argument index and turns it into -32602.
 */
import { RpcError, invalidArgument } from './errors.ts';

/** A decoding failure of one value; the positional parser adds "invalid argument N: ". */
export class ParamError extends Error {}

/** Decoder of one positional parameter. `optional` ones may be absent or null. */
export interface Param<T> {
  readonly optional: boolean;
  readonly parse: (value: unknown) => T;
}

type ParamValue<P> = P extends Param<infer T> ? T : never;
/** Tuple of decoded values for a tuple of decoders. */
export type ParamValues<P extends readonly Param<unknown>[]> = { -readonly [K in keyof P]: ParamValue<P[K]> };

/** A required parameter. */
export const required = <T>(parse: (value: unknown) => T): Param<T> => ({ optional: false, parse });
/** An optional parameter: undefined when absent or null. */
export const optional = <T>(parse: (value: unknown) => T): Param<T | undefined> => ({
  optional: true,
  parse: (v) => (v === null || v === undefined ? undefined : parse(v)),
});

/** geth's parsePositionalArguments: array (or absent) params, no extra ones, required ones present. */
export function parsePositional<P extends readonly Param<unknown>[]>(raw: unknown, specs: P): ParamValues<P> {
  let args: unknown[];
  if (raw === undefined || raw === null) args = [];
  else if (Array.isArray(raw)) args = raw;
  else throw new RpcError('INVALID_PARAMS', 'non-array args');
  if (args.length > specs.length) throw new RpcError('INVALID_PARAMS', `too many arguments, want at most ${specs.length}`);
  const out: unknown[] = new Array(specs.length);
  for (let i = 0; i < specs.length; i++) {
    const v = args[i];
    if ((v === undefined || v === null) && !specs[i].optional)
      throw new RpcError('INVALID_PARAMS', `missing value for required argument ${i}`);
    try {
      out[i] = specs[i].parse(v);
    } catch (err) {
      if (err instanceof ParamError) throw invalidArgument(i, err.message);
      throw err;
    }
  }
  return out as ParamValues<P>;
}

const HEX = /^[0-9a-fA-F]*$/;

/** hexutil's checkNumber errors, without type wrapping. */
export function hexNumberBody(s: string): string {
  if (s.length === 0) throw new ParamError('empty hex string');
  if (!(s.startsWith('0x') || s.startsWith('0X'))) throw new ParamError('hex string without 0x prefix');
  const body = s.slice(2);
  if (body.length === 0) throw new ParamError('hex string "0x"');
  if (body.length > 1 && body[0] === '0') throw new ParamError('hex number with leading zero digits');
  if (!HEX.test(body)) throw new ParamError('invalid hex string');
  return body;
}

/** The message Go's json package gives for a decoding error of type `type` (as hexutil wraps it). */
const wrap = (reason: string, type: string): ParamError => new ParamError(`json: cannot unmarshal ${reason} into Go value of type ${type}`);

function asString(v: unknown, type: string): string {
  if (typeof v !== 'string') throw wrap('non-string', type);
  return v;
}

/** hexutil.Uint64-like quantity with at most `bits` bits. */
function quantityOf(v: unknown, type: string, bits: number): bigint {
  const s = asString(v, type);
  let body: string;
  try {
    body = hexNumberBody(s);
  } catch (err) {
    throw wrap((err as Error).message, type);
  }
  if (body.length > bits / 4) throw wrap(`hex number > ${bits} bits`, type);
  return BigInt('0x' + body);
}

/** QUANTITY up to 256 bits (*hexutil.Big). */
export const quantity = (v: unknown): bigint => quantityOf(v, '*hexutil.Big', 256);
/** QUANTITY up to 64 bits (hexutil.Uint64). */
export const uint64 = (v: unknown): bigint => quantityOf(v, 'hexutil.Uint64', 64);
/** QUANTITY that fits a JS number (hexutil.Uint: indexes, counts). */
export function uint(v: unknown): number {
  const n = quantityOf(v, 'hexutil.Uint', 64);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw wrap('hex number > 64 bits', 'hexutil.Uint');
  return Number(n);
}

/** DATA of any length (hexutil.Bytes). */
export function data(v: unknown): Uint8Array {
  const s = asString(v, 'hexutil.Bytes');
  if (!(s.startsWith('0x') || s.startsWith('0X')))
    throw wrap(s.length === 0 ? 'empty hex string' : 'hex string without 0x prefix', 'hexutil.Bytes');
  const body = s.slice(2);
  if (body.length % 2 !== 0) throw wrap('hex string of odd length', 'hexutil.Bytes');
  if (!HEX.test(body)) throw wrap('invalid hex string', 'hexutil.Bytes');
  return new Uint8Array(Buffer.from(body, 'hex'));
}

/** Fixed-length DATA (common.Address / common.Hash) with hexutil.UnmarshalFixedJSON's messages. */
function fixed(v: unknown, length: number, type: string): Uint8Array {
  const s = asString(v, type);
  if (!(s.startsWith('0x') || s.startsWith('0X'))) throw wrap('hex string without 0x prefix', type);
  const body = s.slice(2);
  if (body.length % 2 !== 0) throw wrap('hex string of odd length', type);
  if (body.length !== length * 2) throw new ParamError(`hex string has length ${body.length}, want ${length * 2} for ${type}`);
  if (!HEX.test(body)) throw wrap('invalid hex string', type);
  return new Uint8Array(Buffer.from(body, 'hex'));
}

/** 20-byte address. */
export const address = (v: unknown): Uint8Array => fixed(v, 20, 'common.Address');
/** 32-byte hash. */
export const hash = (v: unknown): Uint8Array => fixed(v, 32, 'common.Hash');

/** JSON boolean. */
export function bool(v: unknown): boolean {
  if (typeof v !== 'boolean') throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type bool`);
  return v;
}

/** JSON string. */
export function string(v: unknown): string {
  if (typeof v !== 'string') throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type string`);
  return v;
}

/** Go's name of a JSON value's kind, for type errors. */
export function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** Storage key as geth's decodeHash: optional 0x, odd length padded, at most 32 bytes; errors are -32000. */
export function storageKey(v: unknown): Uint8Array {
  const s = string(v);
  let body = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s;
  if (body.length % 2 === 1) body = '0' + body;
  if (!HEX.test(body)) throw new RpcError('SERVER_ERROR', 'unable to decode storage key: hex string invalid');
  if (body.length > 64) throw new RpcError('SERVER_ERROR', 'unable to decode storage key: hex string too long, want at most 32 bytes');
  const out = new Uint8Array(32);
  out.set(Buffer.from(body, 'hex'), 32 - body.length / 2);
  return out;
}

/** A JSON array of one decoder's values. */
export const arrayOf =
  <T>(item: (v: unknown) => T, type: string) =>
  (v: unknown): T[] => {
    if (!Array.isArray(v)) throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type ${type}`);
    return v.map(item);
  };
