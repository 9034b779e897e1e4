/** Messages between the recovery pool and its workers (structured-clonable; buffers are transferred). */

export interface RecoveryWorkerData {
  /** secp256k1 backend preference: 'native' | 'noble' | undefined (automatic), as `chooseSecp256k1` takes it. */
  backend?: string;
}

/** One chunk to recover: `packed` is 97 bytes per item (see packed.ts). */
export interface RecoveryRequest {
  id: number;
  packed: ArrayBuffer;
}

/** The answer for one chunk: 20 bytes per item, and the first failing index within the chunk (-1 when none). */
export interface RecoveryResponse {
  id: number;
  addresses: ArrayBuffer;
  failedIndex: number;
  failure?: string;
}
