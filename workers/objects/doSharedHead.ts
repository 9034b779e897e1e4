import type { HeadState, SharedHead } from '../../gateway/cache/head.ts';
import type { DurableObjectNamespace } from '../types.ts';
import { callObject } from './doCall.ts';

/** SharedHead over the single HeadObject. */
export class DurableObjectSharedHead implements SharedHead {
  constructor(private readonly ns: DurableObjectNamespace) {}

  advance(candidate: HeadState): Promise<HeadState> {
    return callObject<HeadState>(this.ns, 'head', '/advance', candidate);
  }
}
