/**
 * eth_simulateV1 in `bench:rpc` (issue #15): one block of 10 calls (Tracee.nested(i), each a tree of five calls with
 * logs and value) on the head state of both peers, `runs` times each, alternating; p50 ours vs anvil.
 */
import { encodeFunctionData, type Abi } from 'viem';
import { callPatiently, percentile, round3 } from './client.ts';
import type { Peer } from './peers.ts';
import { compileTraceContracts } from './traceContracts.ts';

export interface SimulateFigures {
  oursP50Ms: number;
  anvilP50Ms: number;
  ratio: number;
}

const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

/** `tracee[k]` is the Tracee address on peer k (deployed by the trace phase). */
export async function measureSimulate(peers: [Peer, Peer], tracee: [string, string], runs: number): Promise<SimulateFigures> {
  const abi = compileTraceContracts().Tracee.abi as Abi;
  const payload = (k: number) => [
    {
      blockStateCalls: [
        {
          calls: Array.from({ length: 10 }, (_, i) => ({
            from: DEV0,
            to: tracee[k],
            data: encodeFunctionData({ abi, functionName: 'nested', args: [BigInt(i)] }),
          })),
        },
      ],
    },
    'latest',
  ];
  const t: number[][] = [[], []];
  for (let k = 0; k < 2; k++) {
    const r = await callPatiently(peers[k].url, 'eth_simulateV1', payload(k));
    if (r.code !== undefined) throw new Error(`eth_simulateV1 on ${peers[k].name}: ${r.code}`);
  }
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < 2; k++) {
      const r = await callPatiently(peers[k].url, 'eth_simulateV1', payload(k));
      if (r.code !== undefined) throw new Error(`eth_simulateV1 on ${peers[k].name}: ${r.code}`);
      t[k].push(r.ms);
    }
  }
  const p = t.map((x) =>
    round3(
      percentile(
        x.sort((a, b) => a - b),
        50,
      ),
    ),
  );
  return { oursP50Ms: p[0], anvilP50Ms: p[1], ratio: round3(p[0] / p[1]) };
}
