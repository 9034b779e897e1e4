/**
 * anvil_nodeInfo and anvil_metadata (hardhat_metadata): what a dev chain says about itself, in anvil's shapes (quantities
 * and numbers where anvil puts them). Dev mode only, as the other test-node methods. Fields this node has no value for
 * answer as an unforked anvil does (fork fields null); docs/devchain.md lists what differs.
 */
import { randomBytes } from 'node:crypto';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';

export function devInfoMethods(s: RpcServices): MethodTable {
  const { chain, dev } = s.deps;
  if (!s.options.dev || !dev) return {};
  // A random id per node start, as anvil's and Hardhat's instanceId: a script sees a restarted node as new.
  const instanceId = bytesToHex(randomBytes(32));
  const metadata = method([], () => {
    const head = chain.head();
    return {
      clientVersion: s.options.clientVersion,
      chainId: Number(chain.chainId()),
      instanceId,
      latestBlockNumber: Number(head.number),
      latestBlockHash: bytesToHex(head.hash),
      forkedNetwork: null,
      // anvil's map: snapshot id -> [block number, block hash] of the head it returns to.
      snapshots: Object.fromEntries(dev.snapshots().map((t) => [toQuantity(t.id), [Number(t.number), bytesToHex(t.hash)]])),
    };
  });
  return {
    anvil_nodeInfo: method([], async () => {
      const head = chain.head();
      const baseFee = head.baseFeePerGas ?? 0n;
      return {
        currentBlockNumber: toQuantity(head.number),
        currentBlockTimestamp: Number(head.timestamp),
        currentBlockHash: bytesToHex(head.hash),
        hardFork: chain.headFork?.() ?? null,
        transactionOrder: 'fees',
        environment: {
          baseFee: toQuantity(baseFee),
          chainId: Number(chain.chainId()),
          gasLimit: toQuantity(head.gasLimit),
          gasPrice: toQuantity((await chain.suggestTip()) + baseFee),
        },
        forkConfig: { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
      };
    }),
    anvil_metadata: metadata,
    hardhat_metadata: metadata,
  };
}
