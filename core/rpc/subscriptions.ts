/**
 * eth_subscribe over WebSocket: newHeads, logs (with filter criteria) and newPendingTransactions. A new head's JSON
 * is encoded once and spliced into every subscriber's notification; logs are sent one notification each, as geth.
 */
import { type FilterCriteria } from './callParams.ts';
import { type HeaderData, type LogData } from './encode/types.ts';
import { encodeHeader } from './encode/block.ts';
import { encodeLog } from './encode/receipt.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { type RpcConnection } from './registry.ts';
import { RpcError } from './errors.ts';
import { logMatches } from './logMatch.ts';
import { newId } from './ids.ts';

export type SubscriptionKind = 'newHeads' | 'logs' | 'newPendingTransactions';

interface Subscription {
  id: string;
  kind: SubscriptionKind;
  connection: RpcConnection;
  criteria?: FilterCriteria;
}

const notification = (id: string, resultJson: string): string =>
  '{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"' + id + '","result":' + resultJson + '}}';

export class SubscriptionManager {
  private readonly subs = new Map<string, Subscription>();
  private readonly perConnection = new Map<number, Set<string>>();

  constructor(private readonly maxPerConnection: number) {}

  add(connection: RpcConnection, kind: SubscriptionKind, criteria?: FilterCriteria): string {
    let ids = this.perConnection.get(connection.id);
    if (!ids) {
      ids = new Set();
      this.perConnection.set(connection.id, ids);
      const own = ids;
      connection.onClose(() => {
        for (const id of own) this.subs.delete(id);
        this.perConnection.delete(connection.id);
      });
    }
    if (ids.size >= this.maxPerConnection) throw new RpcError('LIMIT_EXCEEDED', 'limit exceeded: too many subscriptions');
    const id = newId();
    this.subs.set(id, { id, kind, connection, criteria });
    ids.add(id);
    return id;
  }

  /** Removes a subscription of this connection; geth's error when it is not one. */
  remove(connection: RpcConnection, id: string): boolean {
    const s = this.subs.get(id);
    if (!s || s.connection.id !== connection.id) throw new RpcError('SERVER_ERROR', 'subscription not found');
    this.subs.delete(id);
    this.perConnection.get(connection.id)?.delete(id);
    return true;
  }

  get size(): number {
    return this.subs.size;
  }

  onNewHead(header: HeaderData, logs: LogData[]): void {
    if (this.subs.size === 0) return;
    let headJson: string | undefined;
    let logJson: string[] | undefined;
    for (const s of this.subs.values()) {
      if (s.kind === 'newHeads') s.connection.send(notification(s.id, (headJson ??= JSON.stringify(encodeHeader(header)))));
      else if (s.kind === 'logs') {
        logJson ??= logs.map((l) => JSON.stringify(encodeLog(l)));
        for (let i = 0; i < logs.length; i++)
          if (!s.criteria || logMatches(logs[i], s.criteria)) s.connection.send(notification(s.id, logJson[i]));
      }
    }
  }

  onPendingTx(hash: Uint8Array): void {
    let json: string | undefined;
    for (const s of this.subs.values())
      if (s.kind === 'newPendingTransactions') s.connection.send(notification(s.id, (json ??= '"' + bytesToHex(hash) + '"')));
  }
}
