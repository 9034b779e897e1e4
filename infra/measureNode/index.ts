/** Public surface of measure-node (issue #9): the measurement, its report types and the renderers. */
export { measureNode, redactUrl } from './measureNode.ts';
export { defaultMeasureOptions, type MeasureOptions } from './options.ts';
export { presetMethods, parseMethodSpec, type MethodSpec } from './methods.ts';
export { renderMarkdown } from './report/markdown.ts';
export { renderHtml } from './report/html.ts';
export { writeReports, summaryLine, main } from './cli.ts';
export { nearestRank } from './percentile.ts';
export { MeasureNodeError } from './errors.ts';
export * from './types.ts';
