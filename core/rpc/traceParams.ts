/**
 * geth's TraceConfig and TraceCallConfig as debug_trace* take them: tracer name and tracerConfig, `timeout` as a Go
 * duration ("5s", "300ms", "1m30s"; default 5 s), and the struct logger's options at the top level.
 */
import { type TraceOptions } from './interface.ts';
import { ParamError, jsonKind } from './params.ts';

const UNITS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a Go duration string (time.ParseDuration). */
export function goDuration(text: string): number {
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * (UNITS[m[2]] as number);
    matched = re.lastIndex;
  }
  if (text.length === 0 || matched !== text.length) throw new ParamError(`time: invalid duration ${JSON.stringify(text)}`);
  return total;
}

const DEFAULT_TIMEOUT_MS = 5_000;

function boolField(o: Record<string, unknown>, name: string): boolean | undefined {
  const v = o[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean')
    throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go struct field TraceConfig.${name} of type bool`);
  return v;
}

/** geth TraceConfig (absent = defaults). */
export function traceConfig(v: unknown): TraceOptions {
  if (v === undefined || v === null) return { timeoutMs: DEFAULT_TIMEOUT_MS, logger: {} };
  if (typeof v !== 'object' || Array.isArray(v))
    throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type tracers.TraceConfig`);
  const o = v as Record<string, unknown>;
  const out: TraceOptions = { timeoutMs: DEFAULT_TIMEOUT_MS, logger: {} };
  if (o.tracer !== undefined && o.tracer !== null) {
    if (typeof o.tracer !== 'string')
      throw new ParamError(`json: cannot unmarshal ${jsonKind(o.tracer)} into Go struct field TraceConfig.tracer of type string`);
    out.tracer = o.tracer;
  }
  if (o.timeout !== undefined && o.timeout !== null) {
    if (typeof o.timeout !== 'string')
      throw new ParamError(`json: cannot unmarshal ${jsonKind(o.timeout)} into Go struct field TraceConfig.timeout of type string`);
    out.timeoutMs = goDuration(o.timeout);
  }
  if (o.tracerConfig !== undefined && o.tracerConfig !== null) {
    if (typeof o.tracerConfig !== 'object' || Array.isArray(o.tracerConfig))
      throw new ParamError('json: cannot unmarshal tracerConfig: want an object');
    out.tracerConfig = o.tracerConfig as Record<string, unknown>;
  }
  for (const name of ['disableStack', 'disableStorage', 'enableMemory', 'enableReturnData'] as const) {
    const b = boolField(o, name);
    if (b !== undefined) out.logger[name] = b;
  }
  if (o.limit !== undefined && o.limit !== null) {
    if (typeof o.limit !== 'number' || !Number.isInteger(o.limit) || o.limit < 0)
      throw new ParamError(`json: cannot unmarshal ${jsonKind(o.limit)} into Go struct field TraceConfig.limit of type int`);
    out.logger.limit = o.limit;
  }
  return out;
}
