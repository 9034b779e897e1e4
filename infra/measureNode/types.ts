/**
 * The JSON report measure-node writes (schema `xone.measure-node/1`, documented field by field in
 * docs/measure-node.md). Byte counts are bytes, times are milliseconds unless the name says otherwise.
 */

/** Schema identifier written into every report; bump the suffix on an incompatible change. */
export const REPORT_SCHEMA = 'xone.measure-node/1' as const;

/** How one failed call failed (issue #1222: the reason is recorded, not only counted). */
export type FailureKind = 'rpc' | 'http' | 'transport' | 'invalid';

/** Transport-level failure classes: no HTTP response was completed. */
export type TransportErrorClass = 'timeout' | 'reset' | 'refused' | 'other';

/** One failed call, kept out of the latency percentiles. */
export interface CallFailure {
  /** 0-based position of the call within its method's series. */
  index: number;
  /** Time from send until the failure was known. */
  ms: number;
  kind: FailureKind;
  /** Short stable reason used to group failures, e.g. `rpc -32005`, `http 500`, `transport timeout`. */
  reason: string;
  /** JSON-RPC error code when the response carried one (also with a non-200 status, as a gateway's 429 does). */
  rpcCode?: number;
  /** JSON-RPC error message, HTTP status text or the socket error message. */
  message: string;
  httpStatus?: number;
  transport?: TransportErrorClass;
  /** errno-style code of a transport error (ECONNRESET, ECONNREFUSED, ...). */
  errno?: string;
}

/** A failure reason with how often it occurred. */
export interface FailureCount {
  reason: string;
  count: number;
  /** The message of the first failure with this reason. */
  example: string;
}

/** The series of `calls` calls of one method in one snapshot. */
export interface MethodResult {
  /** Display label, e.g. `eth_getBlockByNumber full`. */
  label: string;
  method: string;
  params: unknown[];
  calls: number;
  ok: number;
  failed: number;
  /** Nearest-rank percentiles of the successful calls only; null when none succeeded. */
  p50Ms: number | null;
  p95Ms: number | null;
  minMs: number | null;
  maxMs: number | null;
  /** Latencies of the successful calls, in call order. */
  latenciesMs: number[];
  failures: CallFailure[];
  failureSummary: FailureCount[];
}

/** Memory of the measured process, from /proc/PID/status and /proc/PID/smaps_rollup. */
export interface ProcessMemory {
  rssBytes: number;
  rssAnonBytes: number;
  rssFileBytes: number;
  rssShmemBytes: number;
  vmHwmBytes: number;
  /** From smaps_rollup; null when the kernel does not provide it or it is not readable. */
  pssBytes: number | null;
  swapBytes: number | null;
}

/** Cumulative I/O counters of the measured process, from /proc/PID/io. */
export interface ProcessIo {
  rchar: number;
  wchar: number;
  readBytes: number;
  writeBytes: number;
  cancelledWriteBytes: number;
}

/** Process facts at one snapshot. */
export interface ProcessSnapshot {
  pid: number;
  memory: ProcessMemory;
  io: ProcessIo | null;
}

/** Size of the datadir at one snapshot (apparent size of regular files, symlinks not followed). */
export interface DatadirSnapshot {
  path: string;
  bytes: number;
  files: number;
  /** `findmnt -T` of the datadir (source, fstype, mount point): a tmpfs makes fsync free and growth meaningless. */
  filesystem: { source: string; fstype: string; target: string } | null;
}

/** The endpoint's identity and head at one snapshot (not part of the measured calls). */
export interface NodeInfo {
  clientVersion: string | null;
  head: number | null;
  chainId: number | null;
  /** Why a field is null, when a call failed. */
  errors: string[];
}

/** Host load at one snapshot. */
export interface HostInfo {
  loadavg: [number, number, number];
  cores: number;
}

/** Everything recorded at one moment. */
export interface Snapshot {
  at: string;
  host: HostInfo;
  node: NodeInfo;
  process: ProcessSnapshot | null;
  datadir: DatadirSnapshot | null;
  methods: MethodResult[];
}

/** p50/p95 of one timing field over the slow-block lines of the window. */
export interface TimingSummary {
  field: string;
  count: number;
  p50: number | null;
  p95: number | null;
  max: number | null;
}

/** The node's slow-block log lines written during the window. */
export interface SlowBlockSummary {
  file: string;
  lines: number;
  /** Lines that looked like slow-block records but could not be parsed. */
  unparsed: number;
  /** True when the file shrank during the window (rotated or truncated): it was then read from the start. */
  truncated: boolean;
  firstBlock: number | null;
  lastBlock: number | null;
  gasUsed: number;
  txCount: number;
  timings: TimingSummary[];
}

/** Differences over the window. */
export interface WindowResult {
  seconds: number;
  /** Head after minus head before; null when either is unknown. */
  blocks: number | null;
  io: ProcessIo | null;
  datadir: { growthBytes: number; bytesPerBlock: number | null } | null;
  slowBlocks: SlowBlockSummary | null;
}

/** The whole report. */
export interface MeasureReport {
  schema: typeof REPORT_SCHEMA;
  tool: { name: 'measure-node'; version: string };
  endpoint: string;
  options: {
    windowSec: number;
    calls: number;
    pauseMs: number;
    timeoutMs: number;
    /** Names only: header values (API keys) are never written to a report. */
    headerNames: string[];
    methods: string[];
  };
  /** How the process was found: given by --pid, from the listening port, or not measured (with why). */
  processSource: { kind: 'pid' | 'port' | 'none'; detail: string };
  before: Snapshot;
  after: Snapshot;
  window: WindowResult;
}
