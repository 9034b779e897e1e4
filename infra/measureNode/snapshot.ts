import { measureDatadir } from './datadir.ts';
import { readHostInfo } from './hostInfo.ts';
import type { MethodSpec } from './methods.ts';
import { readNodeInfo } from './nodeInfo.ts';
import { readProcessSnapshot } from './proc/processStats.ts';
import type { RpcCaller } from './rpcCall.ts';
import { sampleMethods } from './sampleMethods.ts';
import type { Snapshot } from './types.ts';

/** What one snapshot needs. */
export interface SnapshotInputs {
  caller: RpcCaller;
  methods: readonly MethodSpec[];
  calls: number;
  pid: number | null;
  datadir: string | undefined;
}

/**
 * Takes one snapshot. Order matters: process memory and datadir first (so the measured calls do not inflate them),
 * then node identity and head, host load, and last the method series.
 */
export async function takeSnapshot(inputs: SnapshotInputs): Promise<Snapshot> {
  const at = new Date().toISOString();
  const process = inputs.pid === null ? null : await readProcessSnapshot(inputs.pid);
  const datadir = inputs.datadir === undefined ? null : await measureDatadir(inputs.datadir);
  const node = await readNodeInfo(inputs.caller);
  const host = readHostInfo();
  const methods = await sampleMethods(inputs.caller, inputs.methods, inputs.calls);
  return { at, host, node, process, datadir, methods };
}
