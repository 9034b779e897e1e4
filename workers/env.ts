import type { DurableObjectNamespace } from './types.ts';

/**
 * The Worker's bindings (wrangler.jsonc): three Durable Object namespaces, the gateway config as a JSON var, and the
 * secrets (`wrangler secret put`). XONE_GATEWAY_* names are the Node gateway's env overrides (gateway/config/env.ts).
 */
export interface WorkerEnv {
  RATE_BUCKETS: DurableObjectNamespace;
  KEYS: DurableObjectNamespace;
  HEAD: DurableObjectNamespace;
  FINAL_CACHE: DurableObjectNamespace;
  /** Per-key usage (UsageObject, one per key). */
  USAGE: DurableObjectNamespace;
  /** The gateway config (same schema as the Node config file), as JSON. */
  GATEWAY_CONFIG?: string;
  /** Secrets. */
  XONE_GATEWAY_UPSTREAMS?: string;
  XONE_GATEWAY_KEY_SECRET?: string;
  XONE_GATEWAY_ADMIN_TOKEN?: string;
  /** Sent as `authorization` on every upstream request (core followers behind an auth proxy). */
  XONE_UPSTREAM_AUTH?: string;
  [name: string]: unknown;
}
