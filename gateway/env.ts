import type { Context } from 'hono';
import type { TierConfig } from './config/types.ts';
import type { ApiKeyRecord } from './keys/types.ts';
import type { IpAddr } from './address/ip.ts';
import type { ScopeBucket } from './ratelimit/types.ts';
import type { RpcRequest } from './rpc/types.ts';

/** Who is calling, as the identity middleware resolved it. */
export interface Identity {
  key?: ApiKeyRecord;
  tierName: string;
  tier: TierConfig;
  ip?: IpAddr;
  /** Truncated address for logs. */
  ipLog: string;
  /** The bucket this caller's calls are charged to (per key, or per IP when keyless). */
  bucket: ScopeBucket;
}

/** Hono environment of the gateway app: the per-request variables middleware share. */
export interface GatewayEnv {
  Variables: {
    requestId: string;
    startedAt: number;
    rpc: RpcRequest | undefined;
    identity: Identity | undefined;
    /** Headers every response of this request carries (X-Request-Id, RateLimit, X-Cache). */
    extraHeaders: Record<string, string>;
    /** Set once a response carrying extraHeaders was built (jsonResponse). */
    headersSent: boolean;
  };
}

/** The context type middleware receive. */
export type GatewayContext = Context<GatewayEnv>;
