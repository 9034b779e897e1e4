/** Public surface of the node's JSON-RPC server. */
export { createRpcServer, type RpcServer, type RpcServerExtensions } from './server.ts';
export { type RpcOptions, type RateLimitOptions, defaultRpcOptions, rpcOptions } from './options.ts';
export type * from './interface.ts';
export type * from './encode/types.ts';
export { CORE_ERRORS, RPC_ERRORS, RpcError, toWireError, type CoreErrorRow, type WireError } from './errors.ts';
export { RawJson } from './json.ts';
