import { canonicalJson } from '../rpc/canonical.ts';
import { GatewayError } from '../rpc/gatewayError.ts';
import type { JsonRpcErrorObject } from '../rpc/types.ts';

/** One upstream WebSocket as the hub sees it (the Node adapter backs it with `ws`). */
export interface UpstreamSocket {
  send(text: string): void;
  close(): void;
}

/** What the hub calls back on an upstream socket it opened. */
export interface UpstreamSocketEvents {
  open(): void;
  message(text: string): void;
  /** The socket closed or failed (before or after it opened). */
  closed(): void;
}

/** Opens a socket to upstream `index` (the pool's order). */
export type OpenUpstreamSocket = (index: number, events: UpstreamSocketEvents) => UpstreamSocket;

/** A client connection holding subscriptions: notifications are delivered to it, and it is closed when they are lost. */
export interface HubClient {
  deliver(text: string): void;
  /** Its subscriptions are gone (upstream socket lost): close it with this WebSocket code and reason. */
  fail(code: number, reason: string): void;
}

/** What the hub needs to know about the upstreams and its own bounds. */
export interface HubOptions {
  open: OpenUpstreamSocket;
  /** Indexes of the upstreams fit to take new subscriptions now, best first. */
  fitUpstreams(): number[];
  /** Distinct upstream subscriptions one upstream socket carries before another socket is opened. */
  subscriptionsPerSocket: number;
  /** Subscriptions one client may hold (-32005 past it). */
  maxPerClient: number;
  /** An upstream socket with no subscription left is closed after this. */
  idleCloseMs?: number;
  /** Time allowed for an upstream socket to open and answer eth_subscribe. */
  subscribeTimeoutMs?: number;
  /**
   * After an upstream socket is lost, how long its subscriptions are re-subscribed (on any fit upstream, retried every
   * `resubscribeDelayMs`) before their clients are closed with 1012 (default 30 s; 0: close them at once).
   */
  resubscribeForMs?: number;
  resubscribeDelayMs?: number;
  /** One line per re-subscription (done or given up): the operator's record of the gap the clients did not see. */
  log?(line: Record<string, unknown>): void;
  /** Gauges: upstream sockets open, distinct upstream subscriptions, client subscriptions. */
  report?(sockets: number, upstreamSubscriptions: number, clientSubscriptions: number): void;
}

/** The answer to a client's eth_subscribe / eth_unsubscribe. */
export type HubAnswer = { result: unknown } | { error: JsonRpcErrorObject };

/** One subscription as the upstream holds it, shared by every client that asked for the same parameters. */
interface Shared {
  key: string;
  params: unknown;
  conn: Conn;
  upstreamId?: string;
  ready: Promise<HubAnswer>;
  /** Client subscription id → client. */
  clients: Map<string, HubClient>;
  /** Subscribers still waiting for `ready` (the shared one is not torn down under them). */
  waiting: number;
  /** Its socket was lost: it takes no new subscribers. */
  dead: boolean;
  /** Its slot on the socket was given back (once). */
  released: boolean;
  /** Being re-subscribed after its socket was lost: since when, and the retry waiting. */
  lost?: { at: number; attempts: number; timer?: ReturnType<typeof setTimeout> };
}

/** One upstream socket. */
interface Conn {
  index: number;
  socket?: UpstreamSocket;
  opened: boolean;
  /** Messages to send once it opens. */
  early: string[];
  /** Hub request id → settle function (eth_subscribe / eth_unsubscribe answers). */
  pending: Map<number, (msg: { result?: unknown; error?: JsonRpcErrorObject }) => void>;
  /** Upstream subscription id → shared subscription. */
  subs: Map<string, Shared>;
  /** Shared subscriptions placed on it (pending ones included). */
  load: number;
  /** Notifications for an id whose eth_subscribe answer has not arrived yet (kept briefly, replayed). */
  orphans: { id: string; result: string }[];
  idle?: ReturnType<typeof setTimeout>;
  lost: boolean;
}

const LOST = 'upstream subscription connection lost; subscribe again';
/** A socket's bookkeeping before it opens; `lost` already for the placeholder of a subscription between attempts. */
const newConn = (index: number, lost: boolean): Conn => ({
  index,
  opened: false,
  early: [],
  pending: new Map(),
  subs: new Map(),
  load: 0,
  orphans: [],
  lost,
});
/** Where a subscription waiting to be re-subscribed sits: no socket (its accounting then touches nothing live). */
const detached = (): Conn => newConn(-1, true);
const MAX_ORPHANS = 256;

/** A client subscription id, as geth shapes them (0x + 32 hex digits). */
function newSubscriptionId(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  let s = '0x';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}

/**
 * Multiplexes client subscriptions over few upstream WebSockets (issue #17 item 8: each client socket had its own
 * upstream socket, so 100 anonymous clients became 100 core sockets). Identical subscriptions (same canonical
 * `eth_subscribe` params) share one upstream subscription whose notifications fan out to every client that asked,
 * each under its own subscription id; the last unsubscribe (or client close) unsubscribes upstream. Notifications are
 * passed through as the node sends them: a reorg's new heads and its `removed: true` logs flow like any other.
 * When an upstream socket is lost, each of its subscriptions is made again on a fit upstream (the same parameters;
 * clients keep their ids and receive the new subscription's notifications) and a log line records the gap; when that
 * does not succeed within `resubscribeForMs` its clients are closed with 1012 and a reason saying so. Calls waiting
 * on the lost socket get -32002.
 */
export class SubscriptionHub {
  private readonly conns = new Set<Conn>();
  private readonly byKey = new Map<string, Shared>();
  private readonly byClientSub = new Map<string, Shared>();
  private readonly perClient = new Map<HubClient, Set<string>>();
  private nextId = 1;
  private closing = false;

  constructor(private readonly opts: HubOptions) {}

  /** eth_subscribe for `client`: joins the identical upstream subscription, or creates it. */
  async subscribe(client: HubClient, params: unknown): Promise<HubAnswer> {
    const own = this.perClient.get(client);
    if ((own?.size ?? 0) >= this.opts.maxPerClient)
      return {
        error: new GatewayError('limitExceeded', 'limit exceeded: too many subscriptions', { limit: this.opts.maxPerClient }).toRpc(),
      };
    const key = canonicalJson(params);
    let shared = this.byKey.get(key);
    if (!shared || shared.dead) {
      const created = this.create(key, params);
      if ('error' in created) return created;
      shared = created;
    }
    shared.waiting++;
    const answer = await shared.ready;
    shared.waiting--;
    if ('error' in answer) {
      this.teardownIfUnused(shared);
      return answer;
    }
    // Torn down meanwhile (its socket was lost right after answering): the caller is told, not left without events.
    if (shared.dead) return { error: new GatewayError('unavailable', LOST).toRpc() };
    const id = newSubscriptionId();
    shared.clients.set(id, client);
    this.byClientSub.set(id, shared);
    let set = this.perClient.get(client);
    if (!set) this.perClient.set(client, (set = new Set()));
    set.add(id);
    this.report();
    return { result: id };
  }

  /** eth_unsubscribe for `client`: false when the id is not one of its subscriptions (the caller answers geth's error). */
  unsubscribe(client: HubClient, id: string): boolean {
    const shared = this.byClientSub.get(id);
    if (!shared || shared.clients.get(id) !== client) return false;
    shared.clients.delete(id);
    this.byClientSub.delete(id);
    this.perClient.get(client)?.delete(id);
    this.teardownIfUnused(shared);
    this.report();
    return true;
  }

  /** The client closed: all its subscriptions go. */
  drop(client: HubClient): void {
    const own = this.perClient.get(client);
    if (!own) return;
    for (const id of [...own]) this.unsubscribe(client, id);
    this.perClient.delete(client);
  }

  /** Upstream sockets open (for tests and the gauge). */
  get socketCount(): number {
    return this.conns.size;
  }

  /** Closes every upstream socket (shutdown); clients are closed by the server. */
  close(): void {
    this.closing = true;
    for (const shared of this.byKey.values()) clearTimeout(shared.lost?.timer);
    for (const c of this.conns) {
      c.lost = true;
      clearTimeout(c.idle);
      c.socket?.close();
    }
    this.conns.clear();
  }

  private create(key: string, params: unknown): Shared | { error: JsonRpcErrorObject } {
    const conn = this.connFor();
    if (!conn) return { error: new GatewayError('unavailable', 'resource unavailable: no healthy upstream').toRpc() };
    const shared: Shared = {
      key,
      params,
      conn,
      clients: new Map(),
      waiting: 0,
      dead: false,
      released: false,
      ready: Promise.resolve({ result: null }),
    };
    conn.load++;
    clearTimeout(conn.idle);
    shared.ready = this.request(conn, 'eth_subscribe', params).then((msg) => {
      if ('error' in msg) return msg;
      if (typeof msg.result !== 'string') return { error: { code: -32603, message: 'internal error: upstream gave no subscription id' } };
      if (shared.dead) {
        // Every waiter left or the socket went: the upstream subscription is not wanted any more.
        this.send(conn, 'eth_unsubscribe', [msg.result]);
        return { error: new GatewayError('unavailable', LOST).toRpc() };
      }
      shared.upstreamId = msg.result;
      conn.subs.set(msg.result, shared);
      this.replayOrphans(conn, msg.result, shared);
      return { result: msg.result };
    });
    this.byKey.set(key, shared);
    return shared;
  }

  private teardownIfUnused(shared: Shared): void {
    if (shared.clients.size > 0 || shared.waiting > 0 || shared.released) return;
    clearTimeout(shared.lost?.timer);
    shared.lost = undefined;
    shared.released = true;
    shared.dead = true;
    if (this.byKey.get(shared.key) === shared) this.byKey.delete(shared.key);
    const conn = shared.conn;
    conn.load--;
    if (shared.upstreamId !== undefined) {
      conn.subs.delete(shared.upstreamId);
      if (!conn.lost) this.send(conn, 'eth_unsubscribe', [shared.upstreamId]);
    }
    if (conn.load === 0 && !conn.lost) {
      clearTimeout(conn.idle);
      conn.idle = setTimeout(() => {
        if (conn.load === 0) this.lose(conn, false);
      }, this.opts.idleCloseMs ?? 10_000);
      (conn.idle as { unref?: () => void }).unref?.();
    }
  }

  /** A socket with room on a fit upstream, or a new one on the best fit upstream. */
  private connFor(): Conn | undefined {
    const fit = this.opts.fitUpstreams();
    if (fit.length === 0) return undefined;
    for (const c of this.conns) if (!c.lost && fit.includes(c.index) && c.load < this.opts.subscriptionsPerSocket) return c;
    const conn = newConn(fit[0] as number, false);
    this.conns.add(conn);
    conn.socket = this.opts.open(conn.index, {
      open: () => {
        conn.opened = true;
        for (const m of conn.early.splice(0)) conn.socket?.send(m);
      },
      message: (text) => this.onMessage(conn, text),
      closed: () => this.lose(conn, true),
    });
    this.report();
    return conn;
  }

  private send(conn: Conn, method: string, params: unknown): number {
    const id = this.nextId++;
    const text = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    if (conn.opened) conn.socket?.send(text);
    else conn.early.push(text);
    return id;
  }

  private request(conn: Conn, method: string, params: unknown): Promise<HubAnswer> {
    return new Promise((resolve) => {
      const id = this.send(conn, method, params);
      const timer = setTimeout(() => {
        conn.pending.delete(id);
        resolve({ error: new GatewayError('unavailable', 'resource unavailable: the upstream did not answer eth_subscribe').toRpc() });
      }, this.opts.subscribeTimeoutMs ?? 10_000);
      conn.pending.set(id, (msg) => {
        clearTimeout(timer);
        resolve(msg.error ? { error: msg.error } : { result: msg.result });
      });
    });
  }

  private onMessage(conn: Conn, text: string): void {
    let msg: { id?: unknown; method?: unknown; params?: { subscription?: unknown; result?: unknown } };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      return;
    }
    if (msg === null || typeof msg !== 'object') return;
    if (msg.method === 'eth_subscription') {
      const subId = msg.params?.subscription;
      if (typeof subId !== 'string') return;
      const result = JSON.stringify(msg.params?.result ?? null);
      const shared = conn.subs.get(subId);
      if (shared) this.fanOut(shared, result);
      else if (conn.pending.size > 0 && conn.orphans.length < MAX_ORPHANS) conn.orphans.push({ id: subId, result });
      return;
    }
    if (typeof msg.id !== 'number') return;
    const settle = conn.pending.get(msg.id);
    if (!settle) return;
    conn.pending.delete(msg.id);
    settle(msg as { result?: unknown; error?: JsonRpcErrorObject });
  }

  /** The result's JSON is encoded once and spliced into each client's notification under its own id. */
  private fanOut(shared: Shared, result: string): void {
    for (const [id, client] of shared.clients)
      client.deliver('{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"' + id + '","result":' + result + '}}');
  }

  private replayOrphans(conn: Conn, upstreamId: string, shared: Shared): void {
    if (conn.orphans.length === 0) return;
    const mine = conn.orphans.filter((o) => o.id === upstreamId);
    conn.orphans = conn.orphans.filter((o) => o.id !== upstreamId);
    // Delivered after the subscribe answer reaches the client (the answer is sent in this turn, these in the next).
    if (mine.length > 0) setTimeout(() => mine.forEach((o) => this.fanOut(shared, o.result)), 0);
  }

  /**
   * The socket is gone (`failed`) or closed idle. Waiters get -32002; subscriptions with clients are re-subscribed
   * (`resubscribe`), unless the hub is closing or re-subscription is off, when their clients are closed with 1012.
   */
  private lose(conn: Conn, failed: boolean): void {
    if (conn.lost && !failed) return;
    const first = !conn.lost;
    conn.lost = true;
    clearTimeout(conn.idle);
    this.conns.delete(conn);
    if (first) conn.socket?.close();
    for (const settle of conn.pending.values()) settle({ error: new GatewayError('unavailable', LOST).toRpc() });
    conn.pending.clear();
    const retry = failed && !this.closing && (this.opts.resubscribeForMs ?? 30_000) > 0;
    for (const shared of [...this.byKey.values()]) {
      if (shared.conn !== conn) continue;
      if (shared.upstreamId !== undefined) conn.subs.delete(shared.upstreamId);
      shared.upstreamId = undefined;
      if (retry && shared.clients.size > 0 && !shared.released) this.retryLater(shared);
      else this.giveUp(shared);
    }
    for (const shared of conn.subs.values()) this.giveUp(shared);
    conn.subs.clear();
    this.report();
  }

  /** Makes a lost subscription again on a fit upstream; its clients keep their ids. */
  private resubscribe(shared: Shared): void {
    const lost = shared.lost;
    if (!lost || shared.released || this.closing) return;
    if (shared.clients.size === 0) {
      this.teardownIfUnused(shared);
      return;
    }
    lost.attempts++;
    const conn = this.connFor();
    if (!conn) return this.retryLater(shared);
    shared.conn = conn;
    conn.load++;
    clearTimeout(conn.idle);
    shared.ready = this.request(conn, 'eth_subscribe', shared.params).then((msg) => {
      // Lost again meanwhile: `lose` has scheduled the next attempt already.
      if (shared.conn !== conn || conn.lost) return { error: new GatewayError('unavailable', LOST).toRpc() };
      if (shared.dead) {
        if ('result' in msg && typeof msg.result === 'string') this.send(conn, 'eth_unsubscribe', [msg.result]);
        return { error: new GatewayError('unavailable', LOST).toRpc() };
      }
      if ('error' in msg || typeof msg.result !== 'string') {
        conn.load--;
        shared.conn = detached();
        this.retryLater(shared);
        return 'error' in msg ? msg : { error: { code: -32603, message: 'internal error: upstream gave no subscription id' } };
      }
      shared.upstreamId = msg.result;
      conn.subs.set(msg.result, shared);
      this.replayOrphans(conn, msg.result, shared);
      this.opts.log?.({
        ts: new Date().toISOString(),
        event: 'ws_resubscribed',
        params: shared.params,
        upstream_index: conn.index,
        clients: shared.clients.size,
        attempts: lost.attempts,
        gap_ms: Date.now() - lost.at,
      });
      shared.lost = undefined;
      this.report();
      return { result: msg.result };
    });
  }

  /** The next attempt (the first at once, then every resubscribeDelayMs), or giving up past resubscribeForMs. */
  private retryLater(shared: Shared): void {
    const lost = (shared.lost ??= { at: Date.now(), attempts: 0 });
    const gap = Date.now() - lost.at;
    if (gap >= (this.opts.resubscribeForMs ?? 30_000)) {
      this.opts.log?.({
        ts: new Date().toISOString(),
        event: 'ws_resubscribe_failed',
        params: shared.params,
        clients: shared.clients.size,
        attempts: lost.attempts,
        gap_ms: gap,
      });
      this.giveUp(shared);
      this.report();
      return;
    }
    lost.timer = setTimeout(() => this.resubscribe(shared), lost.attempts === 0 ? 0 : (this.opts.resubscribeDelayMs ?? 500));
  }

  /** Ends a subscription whose upstream is gone: its clients are closed with 1012 (they must subscribe again). */
  private giveUp(shared: Shared): void {
    clearTimeout(shared.lost?.timer);
    shared.lost = undefined;
    shared.dead = true;
    shared.released = true;
    if (this.byKey.get(shared.key) === shared) this.byKey.delete(shared.key);
    const affected = new Set(shared.clients.values());
    for (const id of shared.clients.keys()) {
      this.byClientSub.delete(id);
      for (const set of this.perClient.values()) set.delete(id);
    }
    shared.clients.clear();
    for (const c of affected) c.fail(1012, LOST);
  }

  private report(): void {
    if (!this.opts.report) return;
    let up = 0;
    for (const c of this.conns) up += c.subs.size;
    this.opts.report(this.conns.size, up, this.byClientSub.size);
  }
}
