/**
 * Logs, polling filters and subscriptions of the eth_ namespace. eth_getLogs resolves its range against the head,
 * refuses ranges over `logsMaxBlockRange` and answers over `logsMaxResults` with -32005 (the store stops its scan at
 * the first match past the cap, so it never reads the whole range to find out), and passes the call's deadline down
 * to the scan (-32002 past it).
 */
import { type FilterCriteria, filterCriteria } from '../callParams.ts';
import { encodeLog } from '../encode/receipt.ts';
import { type LogQuery } from '../interface.ts';
import { ParamError, jsonKind, optional, required, string } from '../params.ts';
import { type CallContext, type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { RpcError } from '../errors.ts';
import type { RawJson } from '../json.ts';
import { type SubscriptionKind } from '../subscriptions.ts';

/** Turns criteria into a concrete query; null when the range is empty (starts past the head). */
async function resolveQuery(s: RpcServices, c: FilterCriteria): Promise<LogQuery | null> {
  if (c.blockHash) {
    const h = await s.deps.chain.getHeaderByHash(c.blockHash);
    if (h === null) throw new RpcError('SERVER_ERROR', 'unknown block');
    return { fromBlock: h.number, toBlock: h.number, blockHash: c.blockHash, addresses: c.addresses, topics: c.topics };
  }
  const head = s.deps.chain.head().number;
  const from = s.blocks.number(c.fromBlock ?? { tag: 'latest' }) ?? head;
  let to = s.blocks.number(c.toBlock ?? { tag: 'latest' }) ?? head;
  if (from > to) throw new RpcError('SERVER_ERROR', 'invalid block range params');
  if (from > head) return null;
  if (to > head) to = head;
  if (to - from + 1n > BigInt(s.options.logsMaxBlockRange)) {
    throw new RpcError('LIMIT_EXCEEDED', `query exceeds max block range ${s.options.logsMaxBlockRange}`);
  }
  return { fromBlock: from, toBlock: to, addresses: c.addresses, topics: c.topics };
}

async function runLogs(s: RpcServices, c: FilterCriteria, ctx: CallContext): Promise<unknown[] | RawJson> {
  const q = await resolveQuery(s, c);
  if (q === null) return [];
  const max = s.options.logsMaxResults;
  const opts = { limit: max, deadline: ctx.deadline, signal: ctx.signal, client: ctx.client };
  // Read and encoded off the main loop when the view can (the node's execution pool).
  if (s.deps.chain.getLogsJson) return await s.deps.chain.getLogsJson(q, opts);
  const logs = await s.deps.chain.getLogs(q, opts);
  if (logs.length > max) throw new RpcError('LIMIT_EXCEEDED', `query returned more than ${max} results`);
  return logs.map(encodeLog);
}

function subscriptionName(v: unknown): string {
  if (typeof v !== 'string') throw new ParamError('expected subscription name as first argument');
  return v;
}

const KINDS: ReadonlySet<string> = new Set(['newHeads', 'logs', 'newPendingTransactions']);

export function ethLogMethods(s: RpcServices): MethodTable {
  const now = s.deps.now ?? Date.now;
  return {
    eth_getLogs: method([required(filterCriteria)] as const, ([c], ctx) => runLogs(s, c, ctx), { expensive: true }),
    eth_newFilter: method([required(filterCriteria)] as const, ([c]) => {
      // Refused as eth_getLogs refuses the same range, rather than installing a filter that can never match.
      if (!c.blockHash) {
        const from = c.fromBlock ? s.blocks.number(c.fromBlock) : null;
        const to = c.toBlock ? s.blocks.number(c.toBlock) : null;
        if (from !== null && to !== null && from > to) throw new RpcError('SERVER_ERROR', 'invalid block range params');
      }
      return s.filters.install({ kind: 'logs', lastPoll: now(), items: [], criteria: c });
    }),
    eth_newBlockFilter: method([], () => s.filters.install({ kind: 'block', lastPoll: now(), items: [] })),
    // No params (execution-apis): anything more is -32602 "too many arguments, want at most 0".
    eth_newPendingTransactionFilter: method([], () => s.filters.install({ kind: 'pendingTx', lastPoll: now(), items: [] })),
    eth_getFilterChanges: method([required(string)] as const, ([id]) => s.filters.poll(id)),
    eth_getFilterLogs: method(
      [required(string)] as const,
      ([id], ctx) => {
        const f = s.filters.get(id);
        if (f.kind !== 'logs') throw new RpcError('SERVER_ERROR', 'filter not found');
        f.lastPoll = now();
        return runLogs(s, f.criteria, ctx);
      },
      { expensive: true },
    ),
    eth_uninstallFilter: method([required(string)] as const, ([id]) => s.filters.uninstall(id)),
    eth_subscribe: method([required(subscriptionName), optional((v) => v)] as const, ([kind, arg], ctx) => {
      if (!ctx.connection) throw new RpcError('NOTIFICATIONS_UNSUPPORTED');
      if (!KINDS.has(kind)) throw new RpcError('SUBSCRIPTION_NOT_FOUND', `no "${kind}" subscription in eth namespace`);
      let criteria: FilterCriteria | undefined;
      // geth's newHeads takes nothing after its name; newPendingTransactions an optional boolean (full objects,
      // which this node does not send: only `false` is taken).
      if (kind === 'newHeads' && arg !== undefined) throw new RpcError('INVALID_PARAMS', 'too many arguments, want at most 1');
      if (kind === 'newPendingTransactions' && arg !== undefined) {
        if (typeof arg !== 'boolean')
          throw new RpcError('INVALID_PARAMS', `invalid argument 1: json: cannot unmarshal ${jsonKind(arg)} into Go value of type bool`);
        if (arg) throw new RpcError('INVALID_PARAMS', 'invalid argument 1: full transaction objects are not supported');
      }
      if (kind === 'logs' && arg !== undefined) {
        try {
          criteria = filterCriteria(arg);
        } catch (err) {
          if (err instanceof ParamError) throw new RpcError('INVALID_PARAMS', `invalid argument 1: ${err.message}`);
          throw err;
        }
      }
      return s.subscriptions.add(ctx.connection, kind as SubscriptionKind, criteria);
    }),
    eth_unsubscribe: method([required(string)] as const, ([id], ctx) => {
      if (!ctx.connection) throw new RpcError('NOTIFICATIONS_UNSUPPORTED');
      return s.subscriptions.remove(ctx.connection, id);
    }),
  };
}
