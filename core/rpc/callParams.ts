/**
 * Object parameters: geth's TransactionArgs (eth_call, estimateGas, createAccessList) and FilterCriteria
 * (eth_getLogs, eth_newFilter, logs subscriptions), with geth's messages. Unknown fields are ignored, as in Go.
 */
import { type AccessListEntry, type AuthorizationData } from './encode/types.ts';
import { type CallRequest } from './interface.ts';
import { type BlockSelector, blockNumber } from './blockParams.ts';
import { ParamError, address, data, hash, jsonKind, quantity, uint64 } from './params.ts';
import { RpcError } from './errors.ts';

const GO_VALUE = /^json: cannot unmarshal (.*) into Go value of type (.*)$/;

/** Runs a field decoder and rewrites Go's "Go value" wording to "Go struct field S.f", as encoding/json does. */
function field<T>(o: Record<string, unknown>, name: string, struct: string, parse: (v: unknown) => T): T | undefined {
  const v = o[name];
  if (v === undefined || v === null) return undefined;
  try {
    return parse(v);
  } catch (err) {
    if (err instanceof ParamError) {
      const m = GO_VALUE.exec(err.message);
      if (m) throw new ParamError(`json: cannot unmarshal ${m[1]} into Go struct field ${struct}.${name} of type ${m[2]}`);
    }
    throw err;
  }
}

function objectOf(v: unknown, type: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type ${type}`);
  return v as Record<string, unknown>;
}

function accessList(v: unknown): AccessListEntry[] {
  if (!Array.isArray(v)) throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type types.AccessList`);
  return v.map((e) => {
    const o = objectOf(e, 'types.AccessTuple');
    const keys = o.storageKeys ?? [];
    if (!Array.isArray(keys)) throw new ParamError(`json: cannot unmarshal ${jsonKind(keys)} into Go value of type []common.Hash`);
    return { address: address(o.address), storageKeys: keys.map(hash) };
  });
}

function authorizationList(v: unknown): AuthorizationData[] {
  if (!Array.isArray(v)) throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type []types.SetCodeAuthorization`);
  return v.map((e) => {
    const o = objectOf(e, 'types.SetCodeAuthorization');
    const A = 'SetCodeAuthorization';
    return {
      chainId: field(o, 'chainId', A, quantity) ?? 0n,
      address: field(o, 'address', A, address) ?? new Uint8Array(20),
      nonce: field(o, 'nonce', A, uint64) ?? 0n,
      yParity: field(o, 'yParity', A, quantity) ?? field(o, 'v', A, quantity) ?? 0n,
      r: field(o, 'r', A, quantity) ?? 0n,
      s: field(o, 's', A, quantity) ?? 0n,
    };
  });
}

function blobHashes(v: unknown): Uint8Array[] {
  if (!Array.isArray(v)) throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type []common.Hash`);
  return v.map(hash);
}

/** geth TransactionArgs. */
export function callRequest(v: unknown): CallRequest {
  const o = objectOf(v, 'ethapi.TransactionArgs');
  const S = 'TransactionArgs';
  const input = field(o, 'input', S, data);
  const legacyData = field(o, 'data', S, data);
  if (input && legacyData && Buffer.compare(input, legacyData) !== 0) {
    throw new RpcError('SERVER_ERROR', 'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data');
  }
  const req: CallRequest = {
    from: field(o, 'from', S, address),
    to: field(o, 'to', S, address),
    gas: field(o, 'gas', S, uint64),
    gasPrice: field(o, 'gasPrice', S, quantity),
    maxFeePerGas: field(o, 'maxFeePerGas', S, quantity),
    maxPriorityFeePerGas: field(o, 'maxPriorityFeePerGas', S, quantity),
    value: field(o, 'value', S, quantity),
    nonce: field(o, 'nonce', S, uint64),
    data: input ?? legacyData,
    accessList: field(o, 'accessList', S, accessList),
    authorizationList: field(o, 'authorizationList', S, authorizationList),
    blobVersionedHashes: field(o, 'blobVersionedHashes', S, blobHashes),
    maxFeePerBlobGas: field(o, 'maxFeePerBlobGas', S, quantity),
    chainId: field(o, 'chainId', S, quantity),
  };
  const type = field(o, 'type', S, uint64);
  if (type !== undefined) req.type = Number(type);
  if (req.gasPrice !== undefined && (req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined)) {
    throw new RpcError('SERVER_ERROR', 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  }
  for (const k of Object.keys(req) as (keyof CallRequest)[]) if (req[k] === undefined) delete req[k];
  return req;
}

/** Validated log filter: a block range by selectors, or one block hash. */
export interface FilterCriteria {
  blockHash?: Uint8Array;
  fromBlock?: BlockSelector;
  toBlock?: BlockSelector;
  addresses: Uint8Array[];
  topics: (Uint8Array[] | null)[];
}

const MAX_TOPICS = 4;
const MAX_ADDRESSES = 1000;
const MAX_SUBTOPICS = 1000;

function topic(v: unknown): Uint8Array {
  if (typeof v !== 'string') throw new ParamError('invalid topic(s)');
  try {
    return hash(v);
  } catch {
    throw new ParamError('invalid topic(s)');
  }
}

/** geth FilterCriteria.UnmarshalJSON. */
export function filterCriteria(v: unknown): FilterCriteria {
  const o = objectOf(v, 'filters.FilterCriteria');
  const out: FilterCriteria = { addresses: [], topics: [] };
  if (o.blockHash !== undefined && o.blockHash !== null) {
    if ((o.fromBlock ?? null) !== null || (o.toBlock ?? null) !== null) {
      throw new ParamError('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other');
    }
    out.blockHash = hash(o.blockHash);
  }
  if (o.fromBlock !== undefined && o.fromBlock !== null) out.fromBlock = blockNumber(o.fromBlock);
  if (o.toBlock !== undefined && o.toBlock !== null) out.toBlock = blockNumber(o.toBlock);
  const a = o.address;
  if (Array.isArray(a)) {
    if (a.length > MAX_ADDRESSES) throw new ParamError('exceed max addresses');
    out.addresses = a.map((x, i) => {
      try {
        return address(x);
      } catch (err) {
        throw new ParamError(`invalid address at index ${i}: ${(err as Error).message}`);
      }
    });
  } else if (typeof a === 'string') {
    try {
      out.addresses = [address(a)];
    } catch (err) {
      throw new ParamError(`invalid address: ${(err as Error).message}`);
    }
  } else if (a !== undefined && a !== null) throw new ParamError('invalid addresses in query');
  const t = o.topics;
  if (t !== undefined && t !== null) {
    if (!Array.isArray(t)) throw new ParamError('invalid topic(s)');
    if (t.length > MAX_TOPICS) throw new ParamError('exceed max topics');
    out.topics = t.map((pos) => {
      if (pos === null) return null;
      if (typeof pos === 'string') return [topic(pos)];
      if (!Array.isArray(pos)) throw new ParamError('invalid topic(s)');
      if (pos.length > MAX_SUBTOPICS) throw new ParamError('exceed max topics');
      if (pos.some((x) => x === null)) return null; // a null inside an OR list matches anything
      return pos.map(topic);
    });
  }
  return out;
}
