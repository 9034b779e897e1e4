/**
 * eth_createAccessList: runs the message, collects the addresses and slots it touched (sender, recipient and
 * precompiles excluded as geth does), and repeats with that list until it stops changing; returns the list and the
 * gas used with it.
 */
import { keyOf } from '../../state/keys.ts';
import type { AccessListItem } from '../../chain/transaction/index.ts';
import { callGas, execute, withDeadline } from './runCall.ts';
import type { CallEnvironment, CallOptions, CallRequest } from './types.ts';

/** Result of eth_createAccessList. */
export interface AccessListResult {
  accessList: AccessListItem[];
  gasUsed: bigint;
  /** EVM error of the final run, if it failed. */
  error?: string;
}

const MAX_ROUNDS = 8;

function canonical(list: readonly AccessListItem[]): string {
  return list.map((e) => `${keyOf(e.address)}:${e.storageKeys.map(keyOf).sort().join(',')}`).join('|');
}

/** The access list `req` needs at the environment's block. */
export async function createAccessList(req: CallRequest, env: CallEnvironment, options: CallOptions = {}): Promise<AccessListResult> {
  const opts = withDeadline(options);
  const gas = callGas(req, opts);
  const excluded = new Set<string>();
  if (req.from !== undefined) excluded.add(keyOf(req.from));
  if (req.to !== undefined) excluded.add(keyOf(req.to));
  let list: AccessListItem[] = req.accessList ?? [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const r = await execute({ ...req, accessList: list }, env, gas, opts, { reportAccessList: true });
    const next = (r.accessList ?? []).filter((e) => e.storageKeys.length > 0 || !excluded.has(keyOf(e.address)));
    if (canonical(next) === canonical(list)) return { accessList: list, gasUsed: r.gasUsed, error: r.error };
    list = next;
  }
  const last = await execute({ ...req, accessList: list }, env, gas, opts);
  return { accessList: list, gasUsed: last.gasUsed, error: last.error };
}
