/** Public surface of the metrics seam: the factory, the declarations and the small instrument interfaces. */
export { createMetrics, type CreateMetricsOptions, type XoneMetrics } from './registry.ts';
export { METRIC_DEFINITIONS, type MetricKey } from './definitions.ts';
export type { Counter, Gauge, Histogram } from './types.ts';
