import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { DurableObjectNamespace } from '../../workers/types.ts';
import { gatewayBehaviourSuite } from './support/behaviourSuite.ts';
import { bundleWorker, type WorkerBundle } from './support/bundle.ts';
import { startWorkerdTarget } from './support/workerdTarget.ts';

type Target = Awaited<ReturnType<typeof startWorkerdTarget>>;

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
  let target: Target;
  // The first gateway the suite starts is the one whose Durable Objects the case below reads.
  gatewayBehaviourSuite(async (urls) => {
    const started = await startWorkerdTarget(urls, bundle.entry);
    target ??= started;
    return started;
  });

  test('behavior: the refusals above came from the Durable Object bucket (it holds the spent burst)', async () => {
    // Miniflare types its namespace with workers-types, which this project does not load: use the Worker's own shape.
    const ns = (await target.mf.getDurableObjectNamespace('RATE_BUCKETS')) as unknown as DurableObjectNamespace;
    const res = await ns.get(ns.idFromName('ip:10.1.0.1')).fetch('https://do.internal/charge', {
      method: 'POST',
      body: JSON.stringify({ buckets: [{ scope: 'ip', id: '10.1.0.1', params: { ratePerSec: 0.01, burst: 5 } }], costs: [1] }),
    });
    expect(await res.json()).toMatchObject({ admitted: 0, denied: { scope: 'ip' } });
    const fresh = await ns.get(ns.idFromName('ip:10.99.0.1')).fetch('https://do.internal/charge', {
      method: 'POST',
      body: JSON.stringify({ buckets: [{ scope: 'ip', id: '10.99.0.1', params: { ratePerSec: 0.01, burst: 5 } }], costs: [1] }),
    });
    expect(await fresh.json()).toMatchObject({ admitted: 1 });
  });
});
