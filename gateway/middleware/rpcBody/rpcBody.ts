import { createMiddleware } from 'hono/factory';
import type { GatewayEnv } from '../../env.ts';
import { parseRpcBody } from '../../rpc/parse.ts';
import { readLimited } from './readLimited.ts';

/** Options of rpcBody (issue defaults: 1 MB body, 100 calls per batch). */
export interface RpcBodyOptions {
  maxBodyBytes?: number;
  maxBatchSize?: number;
  maxDepth?: number;
}

/** Reads and parses the JSON-RPC body under the size, batch and depth limits; sets `rpc`. */
export const rpcBody = ({ maxBodyBytes = 1_048_576, maxBatchSize = 100, maxDepth = 16 }: RpcBodyOptions = {}) =>
  createMiddleware<GatewayEnv>(async function rpcBody(c, next) {
    const text = await readLimited(c.req.raw, maxBodyBytes);
    c.set('rpc', parseRpcBody(text, { maxBatchSize, maxDepth }));
    await next();
  });
