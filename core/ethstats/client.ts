import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { backoffDelay } from './backoff.ts';
import type { EthstatsOptions } from './options.ts';
import {
  blockMessage,
  helloMessage,
  historyMessage,
  latencyMessage,
  nodePingMessage,
  parseIncoming,
  pendingMessage,
  statsMessage,
} from './protocol.ts';
import { SendQueue } from './sendQueue.ts';
import type { EthstatsBlock, EthstatsNodeInfo, EthstatsNodeStats, ReporterState } from './types.ts';
import type { EthstatsTarget } from './url.ts';

/** What the client needs from the node beyond the values pushed to it. */
export interface EthstatsClientDeps {
  /** Blocks by number (missing ones left out); in the worker this asks the main thread. */
  history(numbers: number[]): Promise<EthstatsBlock[]>;
  onState?(state: ReporterState, detail?: string): void;
  log?(level: 'debug' | 'info' | 'warn', msg: string, meta?: Record<string, unknown>): void;
  random?: () => number;
}

const IDLE_STATS: EthstatsNodeStats = { active: true, syncing: false, mining: false, hashrate: 0, peers: 0, gasPrice: 0, uptime: 100 };

/**
 * The ethstats reporter's connection logic: login, full report on connect and every `reportIntervalMs`, coalesced
 * new heads, latency rounds whose late pongs are ignored, Primus heartbeat replies that jump the send queue, history on
 * request, reconnect with exponential backoff and jitter, and a clean close (1001 on shutdown). It never waits on the
 * node: it reports the latest values pushed to it, so a busy chain thread cannot stall its heartbeats. Runs inside the
 * reporter's worker thread (worker.ts); tests may run it in-thread.
 */
export class EthstatsClient {
  private head: EthstatsBlock | null = null;
  private pending = 0;
  private stats: EthstatsNodeStats = IDLE_STATS;
  private ws: WebSocket | null = null;
  private queue: SendQueue | null = null;
  private closing = false;
  private connected = false;
  private lastHeadSentAt = 0;
  private headTimer: NodeJS.Timeout | null = null;
  private ping: { clientTime: string; sentAt: number; timer: NodeJS.Timeout } | null = null;
  private wakeBackoff: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly target: EthstatsTarget,
    private readonly info: EthstatsNodeInfo,
    private readonly options: EthstatsOptions,
    private readonly deps: EthstatsClientDeps,
  ) {}

  /** Starts the connect/report/reconnect loop. */
  start(): void {
    this.loop ??= this.run();
  }

  /** A new canonical head: sent at once, or coalesced with later heads if one went out less than headMinIntervalMs ago. */
  newHead(block: EthstatsBlock): void {
    this.head = block;
    if (!this.connected || this.headTimer) return;
    const wait = this.lastHeadSentAt + this.options.headMinIntervalMs - performance.now();
    if (wait <= 0) this.sendHead();
    else this.headTimer = setTimeout(() => this.sendHead(), wait);
  }

  setPending(count: number): void {
    this.pending = count;
  }

  setStats(stats: EthstatsNodeStats): void {
    this.stats = stats;
  }

  /** Closes with `code` (1001: the node is going away; 1000: normal) and ends the loop. */
  async close(code: 1000 | 1001 = 1001): Promise<void> {
    this.closing = true;
    this.wakeBackoff?.();
    const ws = this.ws;
    if (ws && (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)) {
      const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
      if (ws.readyState === WebSocket.OPEN) ws.close(code, code === 1001 ? 'node shutting down' : 'closing');
      else ws.terminate();
      // A server that never completes the closing handshake does not hold shutdown up.
      const timer = setTimeout(() => ws.terminate(), 2_000);
      await closed;
      clearTimeout(timer);
    }
    await this.loop;
    this.deps.onState?.('closed');
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (!this.closing) {
      const outcome = await this.connectOnce();
      if (this.closing) break;
      if (outcome === 'served') attempt = 0;
      const delay = backoffDelay(attempt++, {
        minMs: this.options.backoffMinMs,
        maxMs: this.options.backoffMaxMs,
        random: this.deps.random,
      });
      this.deps.onState?.('backoff', `${delay} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wakeBackoff = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeBackoff = null;
    }
  }

  /** One connection's life: 'failed' before login completed, 'served' after. */
  private async connectOnce(): Promise<'failed' | 'served'> {
    for (const url of this.target.urls) {
      if (this.closing) return 'failed';
      this.deps.onState?.('connecting', url);
      const ws = await this.open(url);
      if (!ws) continue;
      this.ws = ws;
      const closed = new Promise<{ code: number; reason: string }>((resolve) =>
        ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
      );
      this.queue = new SendQueue({ send: (text, done) => ws.send(text, done) }, this.options.queueLimit, (err) => {
        this.deps.log?.('warn', 'ethstats send failed', { err: err.message });
        ws.terminate();
      });
      ws.on('message', (data) => this.onMessage(data.toString()));
      this.deps.onState?.('logging-in', url);
      const ready = await this.login(ws);
      if (!ready) {
        this.deps.log?.('warn', 'ethstats login failed', { url, reason: ready === null ? 'closed or timed out' : 'unauthorized' });
        ws.terminate();
        await closed;
        this.teardown();
        return 'failed';
      }
      this.connected = true;
      this.deps.onState?.('connected', url);
      this.fullReport();
      const interval = setInterval(() => this.fullReport(), this.options.reportIntervalMs);
      const { code, reason } = await closed;
      clearInterval(interval);
      this.teardown();
      if (!this.closing) this.deps.log?.('warn', 'ethstats connection closed', { code, reason });
      return 'served';
    }
    return 'failed';
  }

  private open(url: string): Promise<WebSocket | null> {
    return new Promise((resolve) => {
      const ws = new WebSocket(url, { handshakeTimeout: this.options.handshakeTimeoutMs, headers: { origin: 'http://localhost' } });
      const fail = (err: Error) => {
        this.deps.log?.('debug', 'ethstats dial failed', { url, err: err.message });
        ws.removeAllListeners();
        ws.on('error', () => {});
        ws.terminate();
        resolve(null);
      };
      ws.once('error', fail);
      ws.once('open', () => {
        ws.off('error', fail);
        ws.on('error', (err) => this.deps.log?.('warn', 'ethstats socket error', { err: err.message }));
        resolve(ws);
      });
    });
  }

  /** Sends `hello` and waits for `ready`: true on ready, false/null when refused, closed or late. */
  private login(ws: WebSocket): Promise<boolean | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(null), this.options.handshakeTimeoutMs);
      const onMessage = (data: WebSocket.RawData) => {
        const msg = parseIncoming(data.toString());
        if (msg.type === 'ready') finish(true);
      };
      const onClose = () => finish(null);
      const finish = (value: boolean | null) => {
        clearTimeout(timer);
        ws.off('message', onMessage);
        ws.off('close', onClose);
        resolve(value);
      };
      ws.on('message', onMessage);
      ws.once('close', onClose);
      this.queue?.push(helloMessage(this.target.name, this.target.secret, this.info));
    });
  }

  private onMessage(text: string): void {
    const msg = parseIncoming(text);
    switch (msg.type) {
      case 'primus-ping':
        this.queue?.push(msg.pong);
        return;
      case 'node-pong':
        return this.onPong(msg.clientTime);
      case 'history':
        void this.answerHistory(msg.numbers);
        return;
      case 'invalid':
        this.deps.log?.('warn', 'ethstats server sent a bad message', { reason: msg.reason, text: text.slice(0, 200) });
        return;
      default:
        return;
    }
  }

  private fullReport(): void {
    if (!this.connected) return;
    this.startLatencyRound();
    if (this.head) this.sendHead();
    this.queue?.push(pendingMessage(this.target.name, this.pending));
    this.queue?.push(statsMessage(this.target.name, this.stats));
  }

  private sendHead(): void {
    if (this.headTimer) clearTimeout(this.headTimer);
    this.headTimer = null;
    if (!this.connected || !this.head) return;
    this.lastHeadSentAt = performance.now();
    this.queue?.push(blockMessage(this.target.name, this.head));
    this.queue?.push(pendingMessage(this.target.name, this.pending));
  }

  /** Sends node-ping; the matching node-pong within pingTimeoutMs yields a latency report. One round at a time. */
  private startLatencyRound(): void {
    if (this.ping) return;
    const clientTime = new Date().toISOString();
    const timer = setTimeout(() => {
      this.deps.log?.('debug', 'ethstats node-pong late; round abandoned', { clientTime });
      this.ping = null;
    }, this.options.pingTimeoutMs);
    this.ping = { clientTime, sentAt: performance.now(), timer };
    this.queue?.push(nodePingMessage(this.target.name, clientTime));
  }

  private onPong(clientTime: string | null): void {
    const ping = this.ping;
    // A pong for an abandoned round (or a stray one) is ignored, not fatal: geth dropped the connection here.
    if (!ping || (clientTime !== null && clientTime !== ping.clientTime)) return;
    clearTimeout(ping.timer);
    this.ping = null;
    this.queue?.push(latencyMessage(this.target.name, (performance.now() - ping.sentAt) / 2));
  }

  private async answerHistory(numbers: number[] | null): Promise<void> {
    let list = numbers;
    if (list === null) {
      const head = this.head?.number ?? 0;
      const start = Math.max(0, head - this.options.historyRange + 1);
      list = Array.from({ length: head - start + 1 }, (_, i) => start + i);
    }
    const timeout = new Promise<EthstatsBlock[]>((resolve) =>
      setTimeout(() => resolve(this.head && list.includes(this.head.number) ? [this.head] : []), this.options.historyTimeoutMs),
    );
    const blocks = await Promise.race([this.deps.history(list).catch(() => [] as EthstatsBlock[]), timeout]);
    if (this.connected) this.queue?.push(historyMessage(this.target.name, blocks));
  }

  private teardown(): void {
    this.connected = false;
    if (this.headTimer) clearTimeout(this.headTimer);
    this.headTimer = null;
    if (this.ping) clearTimeout(this.ping.timer);
    this.ping = null;
    this.ws?.removeAllListeners('message');
    this.ws = null;
    this.queue = null;
  }
}
