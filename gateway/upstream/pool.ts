import { keccak_256 } from '@noble/hashes/sha3.js';
import type { GatewayConfig } from '../config/types.ts';
import { canonicalJson, shortHash } from '../rpc/canonical.ts';
import { isIdempotent, KNOWN_METHODS } from '../methods/classify.ts';
import { methodMatches } from '../methods/costs.ts';
import type { GatewayMetrics } from '../metrics/types.ts';
import { GatewayError } from '../rpc/gatewayError.ts';
import type { JsonRpcErrorObject } from '../rpc/types.ts';
import { FILTER_CREATE, FILTER_USE, filterNotFound, unwrapFilterId, wrapFilterId } from './filterIds.ts';
import type { GateFactory } from './concurrencyGate.ts';
import { QueueFullError, Upstream, type FetchLike } from './upstream.ts';

/** The answer to one forwarded call: `result` or `error`, plus which upstream answered and how. */
export interface ForwardResult {
  result?: unknown;
  error?: JsonRpcErrorObject;
  upstream: string;
  status: number;
  ms: number;
}

/** What one request to one upstream came to (UpstreamPool.attempt). */
type Attempt =
  { done: ForwardResult } | { last: { name: string; problem: string }; stop: boolean; limited?: GatewayError; fallback?: ForwardResult };

/** One call of a client batch to forward (see forwardBatch). */
export interface BatchItem {
  method: string;
  params: unknown;
  minBlock?: number;
}

/**
 * Whether a call may travel in an upstream batch: reads only (a retry of the whole batch elsewhere is harmless), not
 * filter calls (they go to the upstream holding the filter) and not transactions (sent once, with their own rules).
 */
export function batchable(method: string): boolean {
  return isIdempotent(method) && !FILTER_USE.has(method) && !FILTER_CREATE.has(method) && method !== 'eth_sendRawTransaction';
}

/** An upstream's answer for a block it does not hold (geth's and the core's wording). */
const MISSING_BLOCK = /header for hash not found|header not found|unknown block|block not found|block #?\d+ not found/i;

/** A "the node already has this transaction" error: resending a transaction that made it is a success. */
const ALREADY_KNOWN = /already known|known transaction|already imported|already exists/i;

/** A nonce refusal: for a resend of a transaction that was mined meanwhile, the node no longer calls it known. */
const NONCE_TOO_LOW = /nonce too low/i;

/**
 * The upstream pool: picks a healthy, non-lagging upstream (least loaded first), forwards a call, and retries
 * idempotent reads and filter creations on another upstream after a network error, timeout, 5xx or 429. Any other
 * method is tried on another upstream only when its request certainly never left (connection refused, queue full):
 * eth_sendRawTransaction is sent once and never retried blindly; "already known" (or "nonce too low" for a transaction
 * the node has mined since) is turned into success with the locally computed hash.
 * With no healthy upstream it throws -32002 with Retry-After.
 */
export class UpstreamPool {
  readonly upstreams: Upstream[];
  private nextId = 1;
  private rr = 0;

  constructor(
    private readonly cfg: Pick<GatewayConfig, 'upstreams' | 'health' | 'retry' | 'consensus' | 'hedge'>,
    private readonly metrics: GatewayMetrics,
    fetchFn: FetchLike,
    private readonly now: () => number = () => Date.now(),
    gate?: GateFactory,
  ) {
    const breaker = { errorRateThreshold: cfg.health.errorRateThreshold, openMs: cfg.health.intervalMs };
    this.upstreams = cfg.upstreams.map((u, i) => new Upstream(u, i, fetchFn, breaker, now, gate));
  }

  /** Highest head any upstream reported. */
  get bestHead(): number {
    return Math.max(-1, ...this.upstreams.map((u) => u.head));
  }

  /** Why an upstream may not be used now, or undefined when it may. */
  unfitReason(u: Upstream): string | undefined {
    const h = this.cfg.health;
    if (u.syncing) return 'syncing';
    if (u.breaker.state(this.now()) === 'open') return 'errors';
    if (h.maxHeadAgeMs > 0 && u.headAt > 0 && this.now() - u.headAt > h.maxHeadAgeMs) return 'stale head';
    if (u.head >= 0 && this.bestHead - u.head > h.maxLagBlocks) return 'lagging';
    return undefined;
  }

  /**
   * The least-loaded fit upstream not tried yet. With `minBlock`, one known to hold that block (its head, from its
   * newHeads, probes and the blocks it served, is at or past it) is preferred; only when none is known to hold it are
   * the others tried (their "not found" answer is then retried elsewhere).
   */
  private pick(tried: Set<Upstream>, minBlock?: number): Upstream | undefined {
    const now = this.now();
    let fit = this.upstreams.filter((u) => !tried.has(u) && this.unfitReason(u) === undefined && u.breaker.admits(now));
    if (minBlock !== undefined) {
      const holding = fit.filter((u) => u.head >= minBlock);
      if (holding.length > 0) fit = holding;
    }
    if (fit.length === 0) return undefined;
    const start = this.rr++ % fit.length;
    let best = fit[start] as Upstream;
    for (const u of fit) if (u.load < best.load) best = u;
    best.breaker.beginTrial(now);
    return best;
  }

  /** -32002 with Retry-After; the upstream's name and fault go to the log line only (never to the caller). */
  private unavailable(last: { name: string; problem: string } | undefined): GatewayError {
    const message = last ? 'resource unavailable: no upstream could answer' : 'resource unavailable: no healthy upstream';
    return new GatewayError('unavailable', message, undefined, { 'Retry-After': String(this.cfg.health.retryAfterSec) }, last);
  }

  /**
   * Forwards one call; `deadlineMs` bounds the whole attempt sequence. Filter calls go to the upstream that holds
   * the filter (its index is in the filter id: filterIds.ts), and a filter's id is wrapped on creation.
   */
  async forward(method: string, params: unknown, deadlineMs: number, minBlock?: number): Promise<ForwardResult> {
    if (FILTER_USE.has(method)) return this.forwardFilterCall(method, params, deadlineMs);
    if (this.needsConsensus(method)) return this.agreed(method, params, deadlineMs, minBlock);
    const fr = await this.forwardAny(method, params, deadlineMs, undefined, minBlock);
    if (FILTER_CREATE.has(method) && fr.result !== undefined) {
      const index = this.upstreams.findIndex((u) => u.name === fr.upstream);
      return { ...fr, result: wrapFilterId(index, fr.result) };
    }
    return fr;
  }

  /**
   * The gateway's own reads (the head poll, a reorg's parent blocks): one upstream answers, as for a method outside
   * `consensus.methods`. Through consensus, two upstreams a block apart disagree on `latest` at every new block, so
   * with eth_getBlockByNumber configured the head was never learnt (/health `head: null`) and each poll counted as a
   * client-visible disagreement.
   */
  async forwardOwn(method: string, params: unknown, deadlineMs: number): Promise<ForwardResult> {
    return this.forwardAny(method, params, deadlineMs);
  }

  /**
   * Forwards several calls of one client batch as one upstream batch (issue #17: a batch of 100 became 100 upstream
   * requests). Only reads that may go to any upstream are batched (`batchable`); the batch goes to one upstream that
   * holds the highest block any of them is pinned to. Each answer is then checked as a single call's would be; a call
   * without a usable answer (missing from the reply, a block that upstream lacks) and every call of a batch that
   * failed as a whole (network, 5xx, 429, not a JSON array) is forwarded on its own, with the usual retries.
   * Settles per call: one call's failure (-32002 after its retries) is that call's alone.
   */
  async forwardBatch(items: readonly BatchItem[], deadlineMs: number): Promise<PromiseSettledResult<ForwardResult>[]> {
    const end = this.now() + deadlineMs;
    const single = (it: BatchItem) => this.forward(it.method, it.params, Math.max(1, end - this.now()), it.minBlock);
    const pinned = items.map((it) => it.minBlock ?? -1).reduce((a, b) => Math.max(a, b), -1);
    const u = this.pick(new Set(), pinned >= 0 ? pinned : undefined);
    if (!u || items.length < 2) return Promise.allSettled(items.map(single));
    const ids = items.map(() => this.nextId++);
    const body = JSON.stringify(items.map((it, i) => ({ jsonrpc: '2.0', id: ids[i], method: it.method, params: it.params })));
    let reply;
    try {
      reply = await u.send(body, end - this.now());
    } catch {
      // Each call of the batch counts in the breaker as it would alone (a failed batch of 40 is 40 failed calls).
      for (let i = 0; i < items.length; i++) u.record(false);
      this.metrics.upstreamRequest(u.name, 'network', 0);
      return Promise.allSettled(items.map(single));
    }
    this.metrics.upstreamRequest(u.name, String(reply.status), reply.ms / 1000);
    if (reply.status === 429 || reply.status >= 500 || !Array.isArray(reply.body)) {
      for (let i = 0; i < items.length; i++) u.record(reply.status === 429);
      return Promise.allSettled(items.map(single));
    }
    for (let i = 0; i < items.length; i++) u.record(true);
    const byId = new Map<unknown, { result?: unknown; error?: JsonRpcErrorObject }>();
    for (const r of reply.body as unknown[])
      if (r !== null && typeof r === 'object' && 'id' in r)
        byId.set((r as { id: unknown }).id, r as { result?: unknown; error?: JsonRpcErrorObject });
    return Promise.allSettled(
      items.map((it, i) => {
        const rpc = byId.get(ids[i]);
        if (!rpc || !('result' in rpc || 'error' in rpc)) return single(it);
        if (it.minBlock !== undefined && rpc.error && MISSING_BLOCK.test(rpc.error.message ?? '')) return single(it);
        if (rpc.result !== undefined) this.learnHead(u, it.method, rpc.result);
        const base = { upstream: u.name, status: reply.status, ms: reply.ms };
        return Promise.resolve(rpc.error ? { ...base, error: rpc.error } : { ...base, result: rpc.result });
      }),
    );
  }

  private async forwardFilterCall(method: string, params: unknown, deadlineMs: number): Promise<ForwardResult> {
    const args = Array.isArray(params) ? [...params] : [];
    const { index, id } = unwrapFilterId(args[0], this.upstreams.length);
    const holder = this.upstreams[index] as Upstream;
    // The filter lives only there: an upstream that is unfit or does not answer has lost it, as far as we can tell.
    if (this.unfitReason(holder) !== undefined) throw filterNotFound();
    args[0] = id;
    try {
      return await this.forwardAny(method, args, deadlineMs, holder);
    } catch (err) {
      if (err instanceof GatewayError && err.kind === 'unavailable') throw filterNotFound();
      throw err;
    }
  }

  private async forwardAny(
    method: string,
    params: unknown,
    deadlineMs: number,
    only?: Upstream,
    minBlock?: number,
  ): Promise<ForwardResult> {
    // Every method may be tried again when the request never left (connection refused, queue full); reads and filter
    // creations also after a failure that may have reached the node: a second filter there is harmless (unpolled, it
    // expires). On Workers a refused connection is not told from a lost one ("Network connection lost."), so without
    // this a filter made while the first upstream is down failed whenever that upstream's breaker was not open.
    const idempotent = isIdempotent(method) || FILTER_CREATE.has(method);
    const attempts = only ? 1 : 1 + this.cfg.retry.attempts;
    const hedged = !only && this.cfg.hedge.enabled && batchable(method);
    const tried = new Set<Upstream>(only ? this.upstreams.filter((u) => u !== only) : []);
    const end = this.now() + deadlineMs;
    let last: { name: string; problem: string } | undefined;
    for (let a = 0; a < attempts; a++) {
      const u = this.pick(tried, minBlock);
      if (!u) break;
      tried.add(u);
      const o = hedged
        ? await this.hedgedAttempt(u, tried, method, params, end, minBlock)
        : await this.attempt(u, method, params, end, idempotent, minBlock);
      if ('done' in o) return o.done;
      last = o.last;
      const more = a + 1 < attempts;
      if (o.limited && !(idempotent && more)) throw o.limited;
      if (o.fallback && !more) return o.fallback;
      if (o.stop) break;
    }
    throw this.unavailable(last);
  }

  /**
   * One request to `u` and what it means: an answer (`done`), or a failure with whether trying another upstream
   * makes sense (`stop`), the 429 to throw when no retry follows (`limited`), and the answer to give when no other
   * upstream is left (`fallback`: a "block not held" error from a follower).
   */
  private async attempt(
    u: Upstream,
    method: string,
    params: unknown,
    end: number,
    idempotent: boolean,
    minBlock?: number,
  ): Promise<Attempt> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params });
    let reply;
    try {
      reply = await u.send(body, end - this.now());
    } catch (err) {
      u.record(false);
      this.metrics.upstreamRequest(u.name, 'network', 0);
      const last = { name: u.name, problem: err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 200) : 'error' };
      return { last, stop: this.now() >= end || (!idempotent && !neverSent(err)) };
    }
    this.metrics.upstreamRequest(u.name, String(reply.status), reply.ms / 1000);
    const rpc = reply.body as { result?: unknown; error?: JsonRpcErrorObject } | undefined;
    if (reply.status === 429) {
      u.record(true);
      const ms = Number(reply.retryAfter ?? 1) * 1000;
      const limited = new GatewayError(
        'limitExceeded',
        'limit exceeded',
        { scope: 'upstream', retryAfterMs: ms },
        reply.retryAfter ? { 'Retry-After': reply.retryAfter } : {},
      );
      return { last: { name: u.name, problem: 'HTTP 429' }, stop: false, limited };
    }
    if (reply.status >= 500 || !rpc || typeof rpc !== 'object' || !('result' in rpc || 'error' in rpc)) {
      u.record(false);
      return { last: { name: u.name, problem: `HTTP ${reply.status}` }, stop: !idempotent };
    }
    u.record(true);
    u.latency.observe(reply.ms);
    if (rpc.result !== undefined) this.learnHead(u, method, rpc.result);
    const base = { upstream: u.name, status: reply.status, ms: reply.ms };
    // Written out, not spread from `base`: this runs once per forwarded call (spreads showed in its profile).
    const answer: ForwardResult = rpc.error
      ? { upstream: u.name, status: reply.status, ms: reply.ms, error: rpc.error }
      : { upstream: u.name, status: reply.status, ms: reply.ms, result: rpc.result };
    // A call pinned to a block this upstream does not hold yet (a follower a block behind): another one may.
    if (minBlock !== undefined && rpc.error && MISSING_BLOCK.test(rpc.error.message ?? ''))
      return { last: { name: u.name, problem: `block ${minBlock} not held` }, stop: false, fallback: answer };
    if (method === 'eth_sendRawTransaction' && rpc.error) {
      const message = rpc.error.message ?? '';
      // A resend is a success when the node has the transaction, in its pool or (mined since) on chain.
      if (ALREADY_KNOWN.test(message) || (NONCE_TOO_LOW.test(message) && (await this.holdsTransaction(u, txHash(params), end))))
        return { done: { ...base, result: txHash(params) } };
    }
    return { done: answer };
  }

  /**
   * A read sent to `u`, and to a second upstream too when `u` has not answered within its latency quantile
   * (`hedge.quantile` of its recent successful answers, clamped to [minDelayMs, maxDelayMs]; maxDelayMs until it has
   * `minSamples` of them). The first answer wins; the other request is left to finish (its outcome still counts in
   * its upstream's breaker). Never used for transactions or filter calls (`batchable`).
   */
  private async hedgedAttempt(
    u: Upstream,
    tried: Set<Upstream>,
    method: string,
    params: unknown,
    end: number,
    minBlock?: number,
  ): Promise<Attempt> {
    const h = this.cfg.hedge;
    const q = u.latency.quantile(h.quantile, h.minSamples) ?? h.maxDelayMs;
    const delay = Math.min(h.maxDelayMs, Math.max(h.minDelayMs, q));
    const first = this.attempt(u, method, params, end, true, minBlock);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), delay)));
    const early = await Promise.race([first, late]);
    clearTimeout(timer);
    if (early !== undefined) return early;
    const other = this.pick(tried, minBlock);
    if (!other) return first;
    tried.add(other);
    this.metrics.hedge('sent');
    const second = this.attempt(other, method, params, end, true, minBlock);
    const tagged = [first.then((o) => ({ o, i: 0 })), second.then((o) => ({ o, i: 1 }))];
    const winner = await Promise.race(tagged);
    if ('done' in winner.o) {
      if (winner.i === 1) this.metrics.hedge('won');
      return winner.o;
    }
    const loser = await (tagged[1 - winner.i] as Promise<{ o: Attempt; i: number }>);
    if ('done' in loser.o && loser.i === 1) this.metrics.hedge('won');
    return 'done' in loser.o ? loser.o : { ...loser.o, fallback: loser.o.fallback ?? winner.o.fallback };
  }

  /** Whether a call may travel in an upstream batch: `batchable`, and not one that needs two upstreams' answers. */
  canBatch(method: string): boolean {
    return batchable(method) && !this.needsConsensus(method);
  }

  /** Whether `method` is answered only when two upstreams agree (`consensus.methods`). */
  private needsConsensus(method: string): boolean {
    const m = this.cfg.consensus.methods;
    return m.length > 0 && batchable(method) && methodMatches(method, m);
  }

  /**
   * Asks two upstreams (each pinned like a single call, each tried once; a failed one is replaced by another fit
   * upstream) and answers only when both gave the same result or error (canonical JSON). A disagreement is counted
   * (`xone_gateway_consensus_total{result="disagree"}`), its upstreams and answer hashes go to the call's log line
   * (`upstream_error`), and the caller gets -32002 `resource unavailable: upstreams disagree` (HTTP 503 when it is
   * the whole request, with Retry-After). With one answer only, `consensus.onSingleUpstream` decides.
   */
  private async agreed(method: string, params: unknown, deadlineMs: number, minBlock?: number): Promise<ForwardResult> {
    const end = this.now() + deadlineMs;
    const answers: ForwardResult[] = [];
    const tried = new Set<Upstream>();
    let last: { name: string; problem: string } | undefined;
    while (answers.length < 2) {
      const picks: Upstream[] = [];
      for (let i = answers.length; i < 2; i++) {
        const u = this.pick(tried, minBlock);
        if (!u) break;
        tried.add(u);
        picks.push(u);
      }
      if (picks.length === 0) break;
      const settled = await Promise.allSettled(
        picks.map((u) => this.forwardAny(method, params, Math.max(1, end - this.now()), u, minBlock)),
      );
      for (const s of settled) {
        if (s.status === 'fulfilled') answers.push(s.value);
        else if (s.reason instanceof GatewayError && s.reason.upstream) last = s.reason.upstream;
        else if (s.reason instanceof GatewayError && s.reason.kind === 'limitExceeded') last = { name: '?', problem: 'HTTP 429' };
      }
    }
    const label = KNOWN_METHODS.has(method) ? method : 'other';
    const [a, b] = answers;
    if (!a) {
      this.metrics.consensus(label, 'unavailable');
      throw this.unavailable(last);
    }
    if (!b) {
      if (this.cfg.consensus.onSingleUpstream === 'answer') {
        this.metrics.consensus(label, 'single');
        return a;
      }
      this.metrics.consensus(label, 'unavailable');
      const problem = `consensus: only ${a.upstream} answered${last ? ` (${last.name}: ${last.problem})` : ''}`;
      throw new GatewayError('unavailable', 'resource unavailable: consensus needs two upstreams', undefined, this.retryAfter(), {
        name: a.upstream,
        problem: problem.slice(0, 200),
      });
    }
    const ca = canonicalJson(a.error ? { error: a.error } : { result: a.result });
    const cb = canonicalJson(b.error ? { error: b.error } : { result: b.result });
    if (ca === cb) {
      this.metrics.consensus(label, 'agree');
      return a;
    }
    this.metrics.consensus(label, 'disagree');
    throw new GatewayError('disagreement', undefined, undefined, this.retryAfter(), {
      name: `${a.upstream},${b.upstream}`,
      problem: `consensus: ${a.upstream} answered ${shortHash(ca)}, ${b.upstream} answered ${shortHash(cb)}`,
    });
  }

  private retryAfter(): Record<string, string> {
    return { 'Retry-After': String(this.cfg.health.retryAfterSec) };
  }

  /** Whether `u` knows the transaction `hash` (eth_getTransactionByHash is not null); false when it cannot say. */
  private async holdsTransaction(u: Upstream, hash: string, end: number): Promise<boolean> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method: 'eth_getTransactionByHash', params: [hash] });
    try {
      const reply = await u.send(body, end - this.now());
      const found = (reply.body as { result?: { hash?: unknown } | null } | undefined)?.result;
      return typeof found?.hash === 'string' && found.hash.toLowerCase() === hash;
    } catch {
      return false;
    }
  }

  /** A block (or head number) an upstream served proves its head is at least there. */
  private learnHead(u: Upstream, method: string, result: unknown): void {
    let n = -1;
    if (method === 'eth_blockNumber' && typeof result === 'string') n = parseInt(result, 16);
    else if (method === 'eth_getBlockByNumber' && result !== null && typeof result === 'object') {
      const num = (result as { number?: unknown }).number;
      if (typeof num === 'string') n = parseInt(num, 16);
    }
    if (n >= 0) u.observeHead(n, this.now());
  }

  async close(): Promise<void> {
    await Promise.all(this.upstreams.map((u) => u.close()));
  }
}

/** True when a request certainly never reached the node (so even a transaction may go to another one). */
function neverSent(err: unknown): boolean {
  if (err instanceof QueueFullError) return true;
  const code =
    (err as { code?: unknown; cause?: { code?: unknown } } | undefined)?.code ?? (err as { cause?: { code?: unknown } })?.cause?.code;
  return code === 'ECONNREFUSED';
}

/** keccak-256 of the raw transaction: its hash, computed locally. */
function txHash(params: unknown): string {
  const raw = Array.isArray(params) && typeof params[0] === 'string' ? params[0] : '0x';
  const hex = raw.replace(/^0x/, '');
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  let out = '0x';
  for (const b of keccak_256(bytes)) out += b.toString(16).padStart(2, '0');
  return out;
}
