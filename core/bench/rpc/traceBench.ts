/**
 * Tracing in `bench:rpc` (issue #15): a transaction of 200 nested calls (Tracee.many(200) from
 * core/bench/rpc/traceContracts.ts, the contracts the trace tests use) mined on both peers, then
 * `debug_traceTransaction` with the callTracer and with the struct logger, `runs` times each, alternating peers.
 * anvil needs `--steps-tracing` for struct logs, so the caller gives it an anvil of its own for this phase.
 */
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { callPatiently, must, percentile, round3 } from './client.ts';
import type { Peer } from './peers.ts';
import { compileTraceContracts } from './traceContracts.ts';

export interface TraceFigures {
  /** The Tracee contract on each peer (ours, anvil), for the simulate phase. */
  tracee: [string, string];
  callTracer: { oursP50Ms: number; anvilP50Ms: number; ratio: number };
  structLogger: { oursP50Ms: number; anvilP50Ms: number; ratio: number; steps: number };
}

const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const FEES = { maxFeePerGas: '0x2540be400', maxPriorityFeePerGas: '0x3b9aca00' };

async function mined(peer: Peer, tx: Record<string, unknown>): Promise<Record<string, string>> {
  const hash = await must(peer.url, 'eth_sendTransaction', [{ from: DEV0, ...FEES, ...tx }]);
  for (;;) {
    const r = (await must(peer.url, 'eth_getTransactionReceipt', [hash])) as Record<string, string> | null;
    if (r) return r;
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** Deploys Tracee on `peer` and mines many(200); returns the contract and the transaction hash. */
async function prepare(peer: Peer): Promise<{ tracee: string; hash: string }> {
  const { Tracee } = compileTraceContracts();
  const abi = Tracee.abi as Abi;
  await must(peer.url, 'evm_setAutomine', [true]);
  const deployed = await mined(peer, { data: encodeDeployData({ abi, bytecode: Tracee.bytecode }), gas: '0x2dc6c0' });
  const r = await mined(peer, {
    to: deployed.contractAddress,
    data: encodeFunctionData({ abi, functionName: 'many', args: [200n] }),
    // 16M: under Osaka's EIP-7825 cap (2^24), so the same transaction runs on the Osaka dev chain and Shanghai anvil.
    gas: '0xf42400',
  });
  if (r.status !== '0x1') throw new Error('many(200) failed');
  return { tracee: deployed.contractAddress, hash: r.transactionHash };
}

export async function measureTracing(ours: Peer, anvil: Peer, runs: number): Promise<TraceFigures> {
  const prepared = [await prepare(ours), await prepare(anvil)];
  const hashes = prepared.map((p) => p.hash);
  const peers = [ours, anvil];
  const time = async (config: unknown): Promise<{ p50: number[]; steps: number }> => {
    const t: number[][] = [[], []];
    let steps = 0;
    for (let k = 0; k < 2; k++) await callPatiently(peers[k].url, 'debug_traceTransaction', [hashes[k], config]);
    for (let i = 0; i < runs; i++) {
      for (let k = 0; k < 2; k++) {
        const r = await callPatiently(peers[k].url, 'debug_traceTransaction', [hashes[k], config]);
        if (r.code !== undefined) throw new Error(`debug_traceTransaction on ${peers[k].name}: ${r.code}`);
        t[k].push(r.ms);
        const logs = (r.result as { structLogs?: unknown[] }).structLogs;
        if (logs && k === 0) steps = logs.length;
      }
    }
    return {
      p50: t.map((x) =>
        round3(
          percentile(
            x.sort((a, b) => a - b),
            50,
          ),
        ),
      ),
      steps,
    };
  };
  const c = await time({ tracer: 'callTracer' });
  const s = await time({});
  return {
    tracee: [prepared[0].tracee, prepared[1].tracee],
    callTracer: { oursP50Ms: c.p50[0], anvilP50Ms: c.p50[1], ratio: round3(c.p50[0] / c.p50[1]) },
    structLogger: { oursP50Ms: s.p50[0], anvilP50Ms: s.p50[1], ratio: round3(s.p50[0] / s.p50[1]), steps: s.steps },
  };
}
