/**
 * State and execution reads of the eth_ namespace: balance, nonce, code, storage, proofs, eth_call, estimateGas,
 * createAccessList. Each resolves its block to a header first (geth's "header not found" when missing) and passes
 * the call's AbortSignal down; EVM work runs under the gas cap, and its executor (core/rpcPool) under `evmTimeoutMs`.
 */
import { type BlockSelector, blockNumberOrHash } from '../blockParams.ts';
import { callRequest } from '../callParams.ts';
import { type CallRequest, type ExecOptions, type StateOverrides } from '../interface.ts';
import { ParamError, address, arrayOf, data, jsonKind, optional, quantity, required, storageKey, string, uint64 } from '../params.ts';
import { type CallContext, type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { RpcError } from '../errors.ts';
import { revertError } from '../revert.ts';
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';

const LATEST: BlockSelector = { tag: 'latest' };

/** geth StateOverride: address → {balance, nonce, code, state | stateDiff}. */
export function stateOverrides(v: unknown): StateOverrides {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type ethapi.StateOverride`);
  const out: StateOverrides = new Map();
  for (const [addr, ov] of Object.entries(v as Record<string, unknown>)) {
    const key = bytesToHex(address(addr));
    if (ov === null || typeof ov !== 'object')
      throw new ParamError(`json: cannot unmarshal ${jsonKind(ov)} into Go value of type ethapi.OverrideAccount`);
    const o = ov as Record<string, unknown>;
    if (o.state != null && o.stateDiff != null) throw new ParamError(`account ${key} has both 'state' and 'stateDiff'`);
    const slots = (m: unknown) => {
      if (m === null || typeof m !== 'object')
        throw new ParamError(`json: cannot unmarshal ${jsonKind(m)} into Go value of type map[common.Hash]common.Hash`);
      return new Map(Object.entries(m as Record<string, unknown>).map(([k, val]) => [bytesToHex(storageKey(k)), storageKey(val)]));
    };
    // Go's JSON decoding matches field names case-insensitively ("MovePrecompileToAddress" is the same field).
    const moveKey = Object.keys(o).find((k) => k.toLowerCase() === 'moveprecompiletoaddress');
    const moveTo = moveKey === undefined ? undefined : o[moveKey];
    out.set(key, {
      ...(moveTo != null ? { movePrecompileTo: bytesToHex(address(moveTo)) } : {}),
      balance: o.balance == null ? undefined : quantity(o.balance),
      nonce: o.nonce == null ? undefined : uint64(o.nonce),
      code: o.code == null ? undefined : data(o.code),
      state: o.state == null ? undefined : slots(o.state),
      stateDiff: o.stateDiff == null ? undefined : slots(o.stateDiff),
    });
  }
  return out;
}

/**
 * The options of one EVM request: the request's scope (deadline, signal, fairness key) and the gas cap. The executor
 * (the RPC execution pool) enforces --rpc.evmtimeout and the deadline, and stops the EVM when the signal fires.
 */
function execOptions(s: RpcServices, ctx: CallContext, overrides?: StateOverrides): ExecOptions {
  return { signal: ctx.signal, deadline: ctx.deadline, client: ctx.client, gasCap: s.options.gasCap, overrides };
}

function capGas(req: CallRequest, cap: bigint): CallRequest {
  return req.gas !== undefined && cap > 0n && req.gas > cap ? { ...req, gas: cap } : req;
}

export function ethStateMethods(s: RpcServices): MethodTable {
  const { state, exec, txpool } = s.deps;
  const table: MethodTable = {};
  if (state) {
    const at = (sel: BlockSelector) => s.blocks.stateHeader(sel);
    Object.assign(table, {
      eth_getBalance: method([required(address), required(blockNumberOrHash)] as const, async ([a, sel], ctx) =>
        toQuantity(await state.getBalance(a, await at(sel), ctx.signal)),
      ),
      eth_getTransactionCount: method([required(address), required(blockNumberOrHash)] as const, async ([a, sel], ctx) => {
        if (txpool && 'tag' in sel && sel.tag === 'pending') return toQuantity(await txpool.pendingNonce(a));
        return toQuantity(await state.getNonce(a, await at(sel), ctx.signal));
      }),
      eth_getCode: method([required(address), required(blockNumberOrHash)] as const, async ([a, sel], ctx) =>
        bytesToHex(await state.getCode(a, await at(sel), ctx.signal)),
      ),
      eth_getStorageAt: method([required(address), required(string), required(blockNumberOrHash)] as const, async ([a, key, sel], ctx) =>
        bytesToHex(await state.getStorageAt(a, storageKey(key), await at(sel), ctx.signal)),
      ),
      // geth's eth_getAccount: the account's fields, read as eth_getBalance reads (an absent account answers the
      // empty code hash and storage root).
      eth_getAccount: method([required(address), required(blockNumberOrHash)] as const, async ([a, sel], ctx) => {
        const acc = await state.getAccount(a, await at(sel), ctx.signal);
        return {
          balance: toQuantity(acc.balance),
          codeHash: bytesToHex(acc.codeHash),
          nonce: toQuantity(acc.nonce),
          storageRoot: bytesToHex(acc.storageRoot),
        };
      }),
      eth_getProof: method(
        [required(address), required(arrayOf(string, '[]string')), required(blockNumberOrHash)] as const,
        async ([a, keys, sel], ctx) => {
          const slots = keys.map(storageKey);
          const p = await state.getProof(a, slots, await at(sel), ctx);
          return {
            address: bytesToHex(p.address),
            accountProof: p.accountProof.map(bytesToHex),
            balance: toQuantity(p.balance),
            codeHash: bytesToHex(p.codeHash),
            nonce: toQuantity(p.nonce),
            storageHash: bytesToHex(p.storageHash),
            storageProof: p.storageProof.map((sp, i) => ({ key: keys[i], value: toQuantity(sp.value), proof: sp.proof.map(bytesToHex) })),
          };
        },
        { expensive: true },
      ),
    });
  }
  if (exec) {
    Object.assign(table, {
      eth_call: method(
        [required(callRequest), optional(blockNumberOrHash), optional(stateOverrides)] as const,
        async ([req, sel, overrides], ctx) => {
          const header = await s.blocks.stateHeader(sel ?? LATEST);
          const out = await exec.call(capGas(req, s.options.gasCap), header, execOptions(s, ctx, overrides));
          if (out.status === 'revert') throw revertError(out.returnData);
          if (out.status === 'error') throw new RpcError('SERVER_ERROR', out.error);
          return bytesToHex(out.returnData);
        },
        { expensive: true },
      ),
      eth_estimateGas: method(
        [required(callRequest), optional(blockNumberOrHash), optional(stateOverrides)] as const,
        async ([req, sel, overrides], ctx) => {
          const header = await s.blocks.stateHeader(sel ?? LATEST);
          const out = await exec.estimateGas(capGas(req, s.options.gasCap), header, execOptions(s, ctx, overrides));
          if (out.status === 'revert') throw revertError(out.returnData);
          if (out.status === 'error') throw new RpcError('SERVER_ERROR', out.error);
          return toQuantity(out.gas);
        },
        { expensive: true },
      ),
      eth_createAccessList: method(
        [required(callRequest), optional(blockNumberOrHash)] as const,
        async ([req, sel], ctx) => {
          const header = await s.blocks.stateHeader(sel ?? LATEST);
          const out = await exec.createAccessList(capGas(req, s.options.gasCap), header, execOptions(s, ctx));
          const res: Record<string, unknown> = {
            accessList: out.accessList.map((e) => ({ address: bytesToHex(e.address), storageKeys: e.storageKeys.map(bytesToHex) })),
          };
          if (out.error !== undefined) res.error = out.error;
          res.gasUsed = toQuantity(out.gasUsed);
          return res;
        },
        { expensive: true },
      ),
    });
  }
  return table;
}
