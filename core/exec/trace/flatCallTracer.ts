/**
 * geth's flatCallTracer (eth/tracers/native/call_flat.go): the callTracer's frames flattened into Parity/OpenEthereum
 * traces (what Blockscout and the trace_* namespace read): `action`, `result` or `error`, `subtraces`, `traceAddress`,
 * with the block and transaction they belong to. Calls to precompiles are left out unless `includePrecompiles`.
 */
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';
import type { CallFrame } from './callTracer.ts';
import type { TxOutcome } from './tracers.ts';

/** Parity's wording of geth's errors (convertParityErrors). */
const PARITY_ERRORS: Readonly<Record<string, string>> = {
  'out of gas': 'Out of gas',
  'execution reverted': 'Reverted',
  'invalid jump destination': 'Bad jump destination',
  'max call depth exceeded': 'Out of stack',
  'write protection': 'Mutable Call In Static Context',
  'invalid opcode': 'Bad instruction',
  'contract creation code storage out of gas': 'Out of gas',
};

export function flatCallJson(
  root: CallFrame | undefined,
  ctx: TxOutcome['context'],
  isPrecompile: (a: Uint8Array) => boolean,
  config: { convertParityErrors?: boolean; includePrecompiles?: boolean },
): unknown[] {
  const out: unknown[] = [];
  if (!root) return out;
  const visit = (f: CallFrame, address: number[]): void => {
    const children = f.calls.filter(
      (c) => config.includePrecompiles || c.type === 'SELFDESTRUCT' || c.to === undefined || !isPrecompile(c.to),
    );
    const entry: Record<string, unknown> = {};
    const value = toQuantity(f.value ?? 0n);
    if (f.type === 'SELFDESTRUCT') {
      entry.action = { address: bytesToHex(f.from), balance: value, refundAddress: bytesToHex(f.to ?? new Uint8Array(20)) };
    } else if (f.type === 'CREATE' || f.type === 'CREATE2') {
      entry.action = {
        creationMethod: f.type.toLowerCase(),
        from: bytesToHex(f.from),
        gas: toQuantity(f.gas),
        init: bytesToHex(f.input),
        value,
      };
    } else {
      entry.action = {
        callType: f.type.toLowerCase(),
        from: bytesToHex(f.from),
        gas: toQuantity(f.gas),
        input: bytesToHex(f.input),
        to: bytesToHex(f.to ?? new Uint8Array(20)),
        value,
      };
    }
    entry.blockHash = bytesToHex(ctx.blockHash);
    entry.blockNumber = Number(ctx.blockNumber);
    if (f.error !== undefined) entry.error = config.convertParityErrors ? (PARITY_ERRORS[f.error] ?? f.error) : f.error;
    else if (f.type === 'SELFDESTRUCT') entry.result = null;
    else if (f.type === 'CREATE' || f.type === 'CREATE2')
      entry.result = {
        address: bytesToHex(f.to ?? new Uint8Array(20)),
        code: bytesToHex(f.output ?? new Uint8Array(0)),
        gasUsed: toQuantity(f.gasUsed),
      };
    else entry.result = { gasUsed: toQuantity(f.gasUsed), output: bytesToHex(f.output ?? new Uint8Array(0)) };
    entry.subtraces = children.length;
    entry.traceAddress = address;
    if (ctx.txHash) entry.transactionHash = bytesToHex(ctx.txHash);
    entry.transactionPosition = ctx.txIndex;
    entry.type = f.type === 'SELFDESTRUCT' ? 'suicide' : f.type === 'CREATE' || f.type === 'CREATE2' ? 'create' : 'call';
    out.push(entry);
    children.forEach((c, i) => visit(c, [...address, i]));
  };
  visit(root, []);
  return out;
}
