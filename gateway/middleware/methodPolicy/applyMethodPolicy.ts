import type { Identity } from '../../env.ts';
import { methodCost, methodMatches } from '../../methods/costs.ts';
import { RPC_ERRORS } from '../../rpc/errorTable.ts';
import { rpcError, type RpcCall } from '../../rpc/types.ts';

const nonEmpty = (l: string[] | undefined) => (l && l.length > 0 ? l : undefined);

/**
 * Applies the method policy per call: served only when the key's allow-list (or else the tier's) covers it and
 * neither the tier's nor the key's deny list does (a refused call gets -32004, is not charged and never reaches an
 * upstream), then sets each remaining call's cost from the cost table. Malformed elements get -32600 here. (A tier
 * that allows a default-denied method such as `debug_traceTransaction` has that default deny entry dropped when the
 * config is built: gateway/config/validate.ts.)
 */
export function applyMethodPolicy(
  calls: readonly RpcCall[],
  who: Identity,
  costs: Readonly<Record<string, number>>,
  defaultCost: number,
): void {
  const allow = nonEmpty(who.key?.allowMethods) ?? nonEmpty(who.tier.allowMethods);
  const deny = [...who.tier.denyMethods, ...(who.key?.denyMethods ?? [])];
  for (const call of calls) {
    if (call.invalid) {
      call.response = rpcError(call.id, { code: RPC_ERRORS.invalidRequest.code, message: RPC_ERRORS.invalidRequest.message });
      continue;
    }
    if ((allow !== undefined && !methodMatches(call.method, allow)) || methodMatches(call.method, deny)) {
      call.response = rpcError(call.id, {
        code: RPC_ERRORS.methodNotAllowed.code,
        message: `method not supported: ${call.method.slice(0, 64)}`,
      });
      continue;
    }
    call.cost = methodCost(call.method, costs, defaultCost);
  }
}
