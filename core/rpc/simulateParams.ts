/**
 * eth_simulateV1's payload (execution-apis): `blockStateCalls` (each with `blockOverrides`, `stateOverrides` incl.
 * `movePrecompileToAddress`, `calls`), `traceTransfers`, `validation`, `returnFullTransactions`. Decoded strictly;
 * a bad field is -32602 naming it.
 */
import { callRequest } from './callParams.ts';
import { type CallRequest, type StateOverrides } from './interface.ts';
import { ParamError, address, hash, jsonKind, quantity, uint64 } from './params.ts';
import { stateOverrides } from './methods/ethState.ts';

export interface SimulateBlockOverrides {
  number?: bigint;
  time?: bigint;
  gasLimit?: bigint;
  feeRecipient?: Uint8Array;
  prevRandao?: Uint8Array;
  baseFeePerGas?: bigint;
}

export interface SimulatePayload {
  blocks: { blockOverrides?: SimulateBlockOverrides; stateOverrides?: StateOverrides; calls: CallRequest[] }[];
  traceTransfers: boolean;
  validation: boolean;
  returnFullTransactions: boolean;
}

const obj = (v: unknown, type: string): Record<string, unknown> => {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type ${type}`);
  return v as Record<string, unknown>;
};

const flag = (o: Record<string, unknown>, name: string): boolean => {
  const v = o[name];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean')
    throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go struct field simOpts.${name} of type bool`);
  return v;
};

/** geth's BlockOverrides (eth_simulateV1's blocks and debug_traceCall's `blockOverrides`). */
export function blockOverrides(v: unknown): SimulateBlockOverrides {
  const o = obj(v, 'override.BlockOverrides');
  const out: SimulateBlockOverrides = {};
  if (o.number != null) out.number = quantity(o.number);
  if (o.time != null) out.time = uint64(o.time);
  if (o.gasLimit != null) out.gasLimit = uint64(o.gasLimit);
  if (o.feeRecipient != null) out.feeRecipient = address(o.feeRecipient);
  if (o.prevRandao != null) out.prevRandao = hash(o.prevRandao);
  if (o.baseFeePerGas != null) out.baseFeePerGas = quantity(o.baseFeePerGas);
  return out;
}

export function simulatePayload(v: unknown): SimulatePayload {
  const o = obj(v, 'ethapi.simOpts');
  // Absent or null decodes to no blocks, as Go's; the method then answers geth's "empty input".
  const list = o.blockStateCalls ?? [];
  if (!Array.isArray(list))
    throw new ParamError(`json: cannot unmarshal ${jsonKind(list)} into Go struct field simOpts.blockStateCalls of type []ethapi.simBlock`);
  const blocks = list.map((b) => {
    const bo = obj(b, 'ethapi.simBlock');
    const calls = bo.calls == null ? [] : bo.calls;
    if (!Array.isArray(calls))
      throw new ParamError(
        `json: cannot unmarshal ${jsonKind(calls)} into Go struct field simBlock.calls of type []ethapi.TransactionArgs`,
      );
    const out: SimulatePayload['blocks'][number] = { calls: calls.map(callRequest) };
    if (bo.blockOverrides != null) out.blockOverrides = blockOverrides(bo.blockOverrides);
    if (bo.stateOverrides != null) {
      // movePrecompileToAddress rides in the override set, as eth_call's (core/exec/call/stateOverrides.ts).
      out.stateOverrides = stateOverrides(obj(bo.stateOverrides, 'override.StateOverride'));
    }
    return out;
  });
  return {
    blocks,
    traceTransfers: flag(o, 'traceTransfers'),
    validation: flag(o, 'validation'),
    returnFullTransactions: flag(o, 'returnFullTransactions'),
  };
}
