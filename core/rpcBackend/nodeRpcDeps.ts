/**
 * The RPC server's dependencies over one datadir: chain, state and execution views on a read-only connection, and
 * the transaction pool when the node has one, tracing and eth_simulateV1 in this thread. One place builds them so `xone run` and `xone rpc-compat` serve the
 * same code.
 */
import type { ChainConfig } from '../chain/forks.ts';
import type { RpcDeps } from '../rpc/interface.ts';
import type { ChainReader } from '../store/index.ts';
import type { TxPool } from '../txpool/index.ts';
import { StoreChainView, type ChainHead } from './chainView.ts';
import type { ChainEvents } from './events.ts';
import { StoreExecutionView } from './execView.ts';
import { poolStateAt } from './poolContext.ts';
import { StoreSimulateView } from './simulateView.ts';
import { StoreStateView } from './stateView.ts';
import { StoreTraceView } from './traceView.ts';
import { NodeTxPoolView } from './txPoolView.ts';

export interface NodeRpcDepsOptions {
  /** Read-only connection to the datadir (never the writer's). */
  reader: ChainReader;
  config: ChainConfig;
  /** The canonical head, from memory. */
  head: () => ChainHead;
  pool?: TxPool;
  events?: ChainEvents;
  /** eth_call / estimateGas wall-clock budget (geth --rpc.evmtimeout). */
  evmTimeoutMs: number;
  /** Gas cap of eth_simulateV1 and debug_traceCall (geth --rpc.gascap). */
  gasCap: bigint;
  /** Largest debug_trace* answer (bytes of JSON text). */
  traceMaxBytes: number;
}

/** Builds the views; the caller owns the reader, the pool and the events and closes them. */
export function nodeRpcDeps(opts: NodeRpcDepsOptions): RpcDeps {
  const { reader, config, head, pool, events } = opts;
  const chain = new StoreChainView(reader, config, head);
  return {
    chain,
    state: new StoreStateView(reader),
    exec: new StoreExecutionView(reader, config, { timeoutMs: opts.evmTimeoutMs }),
    trace: new StoreTraceView(reader, chain, config, { maxBytes: opts.traceMaxBytes, gasCap: opts.gasCap }),
    simulate: new StoreSimulateView(reader, config, { gasCap: opts.gasCap, timeoutMs: opts.evmTimeoutMs }),
    ...(pool ? { txpool: new NodeTxPoolView(pool, (address) => poolStateAt(reader, head().header.number).nonce(address)) } : {}),
    ...(events ? { events } : {}),
  };
}
