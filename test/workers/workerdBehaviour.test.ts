import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { gatewayBehaviourSuite } from './support/behaviourSuite.ts';
import { bundleWorker, type WorkerBundle } from './support/bundle.ts';
import { startWorkerdTarget } from './support/workerdTarget.ts';

/** Workers' compressed script size limit on the Free plan (3 MB; 10 MB on Paid). */
const FREE_PLAN_LIMIT = 3 * 1024 * 1024;

let bundle: WorkerBundle;
beforeAll(async () => {
  bundle = await bundleWorker();
  console.log(JSON.stringify({ workerBundle: { bytes: bundle.bytes, gzipBytes: bundle.gzipBytes, limitGzipBytes: FREE_PLAN_LIMIT } }));
}, 90_000);
afterAll(() => bundle?.remove());

test('behavior: wrangler bundles workers/ offline, under the Free plan size limit', () => {
  expect(bundle.bytes).toBeGreaterThan(10_000);
  expect(bundle.gzipBytes).toBeLessThan(FREE_PLAN_LIMIT);
});

// The same suite as nodeBehaviour.test.ts, against that bundle in workerd (Miniflare).
describe('gateway behaviour on workerd', () => {
  gatewayBehaviourSuite((url) => startWorkerdTarget(url, bundle.entry));
});
