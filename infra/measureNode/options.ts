import type { MethodSpec } from './methods.ts';
import { presetMethods } from './methods.ts';

/** Everything one measurement needs; the CLI builds it from flags, tests build it directly. */
export interface MeasureOptions {
  /** JSON-RPC endpoint (http or https). */
  url: string;
  /** Seconds between the before and after snapshots. */
  windowSec: number;
  /** Calls per method per snapshot. */
  calls: number;
  /** Pause between consecutive calls (0 = back to back, as the seed's run). */
  pauseMs: number;
  /** A call that has not completed after this long is a `transport timeout` failure. */
  timeoutMs: number;
  methods: MethodSpec[];
  /** Extra request headers (API keys); values never reach the report. */
  headers: Record<string, string>;
  /** Process to measure; when absent and `findPidFromPort` is set, looked up from that port. */
  pid?: number;
  findPidFromPort?: number;
  datadir?: string;
  /** Node log file holding slow-block JSON lines. */
  logFile?: string;
  /** Called with progress lines (the CLI prints them to stderr). */
  onProgress?: (line: string) => void;
  /** Sleeps the window; tests may inject a shorter or observable wait. */
  sleep?: (ms: number) => Promise<void>;
}

/** Defaults from issue #9: an 8-minute window, 20 calls per method, no pause, the seed's methods. */
export const defaultMeasureOptions = {
  windowSec: 480,
  calls: 20,
  pauseMs: 0,
  timeoutMs: 10_000,
  methods: presetMethods(),
  headers: {},
} satisfies Partial<MeasureOptions>;
