import { describe } from 'vitest';
import { gatewayBehaviourSuite } from './support/behaviourSuite.ts';
import { startNodeTarget } from './support/nodeTarget.ts';

// The shared gateway behaviour suite against the gateway on Node (in-process app, memory seams).
describe('gateway behaviour on Node', () => {
  gatewayBehaviourSuite((urls) => startNodeTarget(urls));
});
