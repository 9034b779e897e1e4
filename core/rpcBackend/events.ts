/** Fan-out of chain events to the RPC server (filters, subscriptions); the node publishes only durable heads. */
import type { RpcEventSink, RpcEventSource } from '../rpc/interface.ts';
import type { HeaderData, LogData } from '../rpc/encode/types.ts';

export class ChainEvents implements RpcEventSource {
  private readonly sinks = new Set<RpcEventSink>();

  subscribe(sink: RpcEventSink): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  newHead(header: HeaderData, logs: LogData[]): void {
    for (const s of this.sinks) s.onNewHead(header, logs);
  }

  pendingTx(hash: Uint8Array): void {
    for (const s of this.sinks) s.onPendingTx(hash);
  }
}
