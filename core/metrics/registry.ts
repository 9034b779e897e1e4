/**
 * Builds the metrics of one process on its own prom-client `Registry` (no module-level singletons, so two nodes in
 * one test process do not collide). Process metrics (CPU, RSS, heap, GC, event-loop delay) come from prom-client's
 * `collectDefaultMetrics` with the `xone_` prefix.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { METRIC_DEFINITIONS, type MetricKey } from './definitions.ts';
import type { Counter as CounterLike, Gauge as GaugeLike, Histogram as HistogramLike } from './types.ts';

type Kind<K extends MetricKey> = (typeof METRIC_DEFINITIONS)[K]['kind'];
type Instrument<K extends MetricKey> = Kind<K> extends 'gauge' ? GaugeLike : Kind<K> extends 'counter' ? CounterLike : HistogramLike;

/** The node's metrics: one small interface per declared metric, plus the registry to serve from `/metrics`. */
export type XoneMetrics = { readonly [K in MetricKey]: Instrument<K> } & { readonly register: Registry };

export interface CreateMetricsOptions {
  /** Registry to fill (default: a new one). */
  register?: Registry;
  /** Also collect process metrics with the `xone_` prefix (default true). */
  processMetrics?: boolean;
  /** Labels added to every series (e.g. `{ instance: 'follower-1' }`). */
  defaultLabels?: Record<string, string>;
}

/** Creates every metric in `METRIC_DEFINITIONS` on one registry. */
export function createMetrics({ register = new Registry(), processMetrics = true, defaultLabels }: CreateMetricsOptions = {}): XoneMetrics {
  if (defaultLabels) register.setDefaultLabels(defaultLabels);
  if (processMetrics) collectDefaultMetrics({ register, prefix: 'xone_' });
  const out: Record<string, unknown> = { register };
  for (const [key, def] of Object.entries(METRIC_DEFINITIONS)) {
    const common = { name: def.name, help: def.help, registers: [register] };
    if (def.kind === 'gauge') out[key] = new Gauge(common);
    else if (def.kind === 'counter') out[key] = new Counter(common);
    else out[key] = new Histogram({ ...common, buckets: def.buckets });
  }
  return out as XoneMetrics;
}
