/** Assembles the method table from the namespace files; dev methods only in dev mode. */
import { type MethodTable } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { accountMethods } from './accounts.ts';
import { debugMethods } from './debug.ts';
import { debugTraceMethods } from './debugTrace.ts';
import { traceMethods } from './trace.ts';
import { simulateMethods } from './simulate.ts';
import { devMethods } from './dev.ts';
import { devInfoMethods } from './devInfo.ts';
import { ethMethods } from './eth.ts';
import { netMethods } from './net.ts';
import { txpoolMethods } from './txpool.ts';
import { web3Methods } from './web3.ts';

export function buildMethodTable(s: RpcServices): MethodTable {
  return {
    ...ethMethods(s),
    ...accountMethods(s),
    ...debugTraceMethods(s),
    ...traceMethods(s),
    ...simulateMethods(s),
    ...netMethods(s),
    ...web3Methods(s),
    ...txpoolMethods(s),
    ...debugMethods(s),
    ...devMethods(s),
    ...devInfoMethods(s),
  };
}
