/** The debug_ namespace subset of execution-apis: consensus encodings of blocks, headers, receipts and txs. */
import { blockNumberOrHash } from '../blockParams.ts';
import { hash, required } from '../params.ts';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { RpcError } from '../errors.ts';
import { type BlockSelector } from '../blockParams.ts';
import { type HeaderData } from '../encode/types.ts';
import { bytesToHex } from '../../primitives/hex.ts';

export function debugMethods(s: RpcServices): MethodTable {
  const { chain } = s.deps;
  // geth answers these with "header not found" / "block #N not found" (-32000) when the block is missing.
  const headerOf = async (sel: BlockSelector): Promise<HeaderData> => {
    const h = await s.blocks.header(sel);
    if (h === null) throw new RpcError('SERVER_ERROR', 'header not found');
    return h;
  };
  const notFound = (h: HeaderData): never => {
    throw new RpcError('SERVER_ERROR', `block #${h.number} not found`);
  };
  return {
    debug_getRawHeader: method([required(blockNumberOrHash)] as const, async ([sel]) => {
      const h = await headerOf(sel);
      const raw = await chain.getRawHeader(h.hash);
      return raw ? bytesToHex(raw) : notFound(h);
    }),
    debug_getRawBlock: method(
      [required(blockNumberOrHash)] as const,
      async ([sel]) => {
        const h = await headerOf(sel);
        const raw = await chain.getRawBlock(h.hash);
        return raw ? bytesToHex(raw) : notFound(h);
      },
      { expensive: true },
    ),
    debug_getRawReceipts: method(
      [required(blockNumberOrHash)] as const,
      async ([sel]) => {
        const h = await headerOf(sel);
        const raw = await chain.getRawReceipts(h.hash);
        return raw ? raw.map(bytesToHex) : notFound(h);
      },
      { expensive: true },
    ),
    debug_getRawTransaction: method([required(hash)] as const, async ([h]) => {
      const raw = await chain.getRawTransaction(h);
      return raw ? bytesToHex(raw) : '0x';
    }),
  };
}
