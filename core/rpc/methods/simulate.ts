/** eth_simulateV1 (execution-apis): blocks of calls on the state at a block; the answer is JSON text from the SimulateView. */
import { blockNumberOrHash } from '../blockParams.ts';
import { RawJson } from '../json.ts';
import { optional, required } from '../params.ts';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { simulatePayload } from '../simulateParams.ts';

export function simulateMethods(s: RpcServices): MethodTable {
  const sim = s.deps.simulate;
  if (!sim) return {};
  return {
    eth_simulateV1: method(
      [required(simulatePayload), optional(blockNumberOrHash)] as const,
      async ([payload, sel], ctx) => new RawJson(await sim.simulate(payload, await s.blocks.stateHeader(sel ?? { tag: 'latest' }), ctx)),
      { expensive: true },
    ),
  };
}
