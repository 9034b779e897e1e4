/**
 * The JSON shapes of the `/xone/v1/` protocol and their strict parsers (a peer's answer is untrusted input).
 * Hashes are 0x-prefixed hex; numbers are JSON numbers (block numbers stay below 2^53).
 */
import { bytesToHex, hexToFixedBytes } from '../primitives/hex.ts';
import { SyncError } from './errors.ts';

/** `GET /xone/v1/status`. */
export interface SyncStatus {
  protocol: string;
  genesisHash: Uint8Array;
  chainId: bigint;
  head: SyncHead;
  clientVersion: string;
}

/** A durable head: what `/status` reports and `/heads` announces. */
export interface SyncHead {
  number: bigint;
  hash: Uint8Array;
  /** Total difficulty of the chain ending at the head (a follower follows the heaviest peer); absent from older peers. */
  td?: bigint;
}

/** JSON of a head (`td` as a 0x quantity: it may pass 2^53). */
export function headToJson(h: SyncHead): { number: number; hash: string; td?: string } {
  return { number: Number(h.number), hash: bytesToHex(h.hash), ...(h.td !== undefined ? { td: '0x' + h.td.toString(16) } : {}) };
}

/** JSON of a status. */
export function statusToJson(s: SyncStatus): Record<string, unknown> {
  return {
    protocol: s.protocol,
    genesisHash: bytesToHex(s.genesisHash),
    chainId: Number(s.chainId),
    head: headToJson(s.head),
    clientVersion: s.clientVersion,
  };
}

function bad(what: string, peer: string): SyncError {
  return new SyncError('SYNC_PEER_BAD_RESPONSE', `peer ${peer}: malformed ${what}`, { peer, what });
}

function uint(v: unknown, what: string, peer: string): bigint {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw bad(what, peer);
  return BigInt(v);
}

function hash32(v: unknown, what: string, peer: string): Uint8Array {
  if (typeof v !== 'string') throw bad(what, peer);
  try {
    return hexToFixedBytes(v, 32);
  } catch {
    throw bad(what, peer);
  }
}

function quantity(v: unknown, what: string, peer: string): bigint {
  if (typeof v !== 'string' || !/^0x(0|[1-9a-f][0-9a-f]{0,63})$/.test(v)) throw bad(what, peer);
  return BigInt(v);
}

/** Parses a head object (from `/status` or a `/heads` event). */
export function parseHead(v: unknown, peer: string): SyncHead {
  if (typeof v !== 'object' || v === null) throw bad('head', peer);
  const o = v as Record<string, unknown>;
  const head: SyncHead = { number: uint(o.number, 'head.number', peer), hash: hash32(o.hash, 'head.hash', peer) };
  if (o.td !== undefined) head.td = quantity(o.td, 'head.td', peer);
  return head;
}

/** Parses a `/status` answer. */
export function parseStatus(v: unknown, peer: string): SyncStatus {
  if (typeof v !== 'object' || v === null) throw bad('status', peer);
  const o = v as Record<string, unknown>;
  if (typeof o.protocol !== 'string' || typeof o.clientVersion !== 'string') throw bad('status', peer);
  return {
    protocol: o.protocol,
    genesisHash: hash32(o.genesisHash, 'status.genesisHash', peer),
    chainId: uint(o.chainId, 'status.chainId', peer),
    head: parseHead(o.head, peer),
    clientVersion: o.clientVersion.slice(0, 200),
  };
}
