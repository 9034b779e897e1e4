/**
 * The ethstats reporter (`--ethstats name:secret@host:port`): a main-thread handle over a worker thread that runs the
 * protocol (worker.ts, client.ts). The node pushes heads, pending counts and stats to it and answers its history
 * requests; the worker never waits on the node to answer a heartbeat.
 */
import type { Worker } from 'node:worker_threads';
import { spawnTsWorker, waitForReady } from '../runtime/spawnTsWorker.ts';
import { EthstatsError } from './errors.ts';
import { defaultEthstatsOptions, type EthstatsOptions } from './options.ts';
import type { EthstatsBlock, EthstatsNodeInfo, EthstatsNodeStats, FromReporter, ReporterState, ToReporter } from './types.ts';
import { parseEthstatsUrl } from './url.ts';
import type { ReporterWorkerData } from './worker.ts';

export { parseEthstatsUrl } from './url.ts';
export { EthstatsError } from './errors.ts';
export { defaultEthstatsOptions, type EthstatsOptions } from './options.ts';
export type { EthstatsBlock, EthstatsNodeInfo, EthstatsNodeStats, ReporterState } from './types.ts';

/** What the reporter needs from the node. */
export interface EthstatsReporterDeps {
  /** Blocks by number for a history request (leave out unknown numbers). */
  history(numbers: number[]): EthstatsBlock[] | Promise<EthstatsBlock[]>;
  onState?(state: ReporterState, detail?: string): void;
  log?(level: 'debug' | 'info' | 'warn', msg: string, meta?: Record<string, unknown>): void;
}

/** Main-thread handle of the reporter worker. */
export class EthstatsReporter {
  private worker: Worker | null = null;
  private readonly options: EthstatsOptions;

  /** Parses the URL at once, so a bad `--ethstats` value fails at startup with a typed error. */
  constructor(
    private readonly url: string,
    private readonly info: EthstatsNodeInfo,
    private readonly deps: EthstatsReporterDeps,
    options: Partial<EthstatsOptions> = {},
  ) {
    this.options = { ...defaultEthstatsOptions, ...options };
    parseEthstatsUrl(url);
  }

  /** Starts the worker and resolves once it runs. */
  async init(): Promise<void> {
    const data: ReporterWorkerData = { target: parseEthstatsUrl(this.url), info: this.info, options: this.options };
    const worker = spawnTsWorker(new URL('./worker.ts', import.meta.url), data, { name: 'ethstats' });
    worker.on('message', (msg: FromReporter) => this.onMessage(msg));
    worker.on('error', (err) => this.deps.log?.('warn', 'ethstats worker failed', { err: err.message }));
    await waitForReady(worker, 30_000);
    this.worker = worker;
  }

  head(block: EthstatsBlock): void {
    this.post({ type: 'head', block });
  }

  pending(count: number): void {
    this.post({ type: 'pending', count });
  }

  stats(stats: EthstatsNodeStats): void {
    this.post({ type: 'stats', stats });
  }

  /** Closes the connection with 1001 (going away) and ends the worker; bounded by `timeoutMs`. */
  async close(timeoutMs = 5_000): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'close' } satisfies ToReporter);
    const timer = setTimeout(() => void worker.terminate(), timeoutMs);
    await exited;
    clearTimeout(timer);
  }

  private post(msg: ToReporter): void {
    if (!this.worker) throw new EthstatsError('WORKER', 'ethstats reporter is not running (call init() first)');
    this.worker.postMessage(msg);
  }

  private onMessage(msg: FromReporter): void {
    switch (msg.type) {
      case 'state':
        return this.deps.onState?.(msg.state, msg.detail);
      case 'log':
        return this.deps.log?.(msg.level, msg.msg, msg.meta);
      case 'history-request':
        void Promise.resolve()
          .then(() => this.deps.history(msg.numbers))
          .catch(() => [] as EthstatsBlock[])
          .then((blocks) => this.worker?.postMessage({ type: 'history-response', requestId: msg.requestId, blocks } satisfies ToReporter));
        return;
      default:
        return;
    }
  }
}
