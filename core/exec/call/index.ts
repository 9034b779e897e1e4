/** RPC-facing execution entry points: eth_call, eth_estimateGas, eth_createAccessList. */
export { call } from './runCall.ts';
export { callTimeout, goDuration } from './timeout.ts';
export { callEnvironmentAt } from './environment.ts';
export { estimateGas } from './estimateGas.ts';
export { createAccessList, type AccessListResult } from './createAccessList.ts';
export {
  CallError,
  defaultCallOptions,
  type CallEnvironment,
  type CallErrorCode,
  type Interrupt,
  type CallOptions,
  type CallRequest,
  type CallResult,
} from './types.ts';
