import { setTimeout as sleep } from 'node:timers/promises';
import type { RpcCaller } from './rpcCall.ts';

/**
 * Wraps a caller so that every request the tool sends (identity and head calls as well as the measured series) waits
 * `pauseMs` after the previous one finished: with `--pause-ms` the endpoint never sees two calls back to back, which is
 * what keeps a rate bucket from refusing them (issue #1222). The pause itself is never inside a measured latency.
 */
export function pacedCaller(inner: RpcCaller, pauseMs: number): RpcCaller {
  if (pauseMs <= 0) return inner;
  let previousDone = false;
  return {
    async call(method, params) {
      if (previousDone) await sleep(pauseMs);
      try {
        return await inner.call(method, params);
      } finally {
        previousDone = true;
      }
    },
    close: () => inner.close(),
  };
}
