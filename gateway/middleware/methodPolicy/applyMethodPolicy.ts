import type { Identity } from '../../env.ts';
import { methodCost, methodMatches } from '../../ratelimit/costs.ts';
import { RPC_ERRORS } from '../../rpc/errorTable.ts';
import { rpcError, type RpcCall } from '../../rpc/types.ts';

const nonEmpty = (l: string[] | undefined) => (l && l.length > 0 ? l : undefined);

/**
 * Applies the tier's and the key's method allow/deny lists per call (a denied call gets -32004 and is not charged)
 * and sets each remaining call's cost from the cost table. Malformed elements get -32600 here. An explicit allow
 * entry overrides the default deny list (a tier may allow `debug_traceTransaction`).
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
    const explicitlyAllowed = allow !== undefined && methodMatches(call.method, allow);
    if ((allow !== undefined && !explicitlyAllowed) || (!explicitlyAllowed && methodMatches(call.method, deny))) {
      call.response = rpcError(call.id, {
        code: RPC_ERRORS.methodNotAllowed.code,
        message: `method not supported: ${call.method.slice(0, 64)}`,
      });
      continue;
    }
    call.cost = methodCost(call.method, costs, defaultCost);
  }
}
