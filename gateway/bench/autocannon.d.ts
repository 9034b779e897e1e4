// Minimal types for the part of autocannon 8 the gateway benchmark uses (the package ships none).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';
  namespace autocannon {
    interface Options {
      url: string;
      method?: string;
      body?: string;
      headers?: Record<string, string>;
      connections?: number;
      pipelining?: number;
      duration?: number;
      /** Stop after this many requests (overrides duration). */
      amount?: number;
      /** Requests in order; `setupRequest` may change each one before it is sent (the top-level fields are defaults). */
      requests?: { setupRequest?: (req: { body?: string }) => { body?: string } }[];
    }
    interface Result {
      requests: { total: number; average: number };
      non2xx: number;
      errors: number;
    }
  }
  function autocannon(opts: autocannon.Options): EventEmitter;
  export default autocannon;
}
