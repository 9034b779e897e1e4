/**
 * Fee methods: eth_gasPrice (suggested tip + head base fee, as geth), eth_maxPriorityFeePerGas and eth_feeHistory
 * (geth's eth/gasprice/feehistory.go: per-block base fees incl. the next one, gas used ratios, and reward
 * percentiles weighted by gas used).
 */
import { blockNumber } from '../blockParams.ts';
import { type FeeHistoryBlock } from '../interface.ts';
import { ParamError, jsonKind, optional, required } from '../params.ts';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { RpcError } from '../errors.ts';
import { toQuantity } from '../../primitives/hex.ts';

/** geth math.HexOrDecimal64: a JSON number, or a string in hex (0x) or decimal. */
function hexOrDecimal64(v: unknown): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string') {
    const ok = /^0[xX][0-9a-fA-F]{1,16}$/.test(v) || /^[0-9]{1,20}$/.test(v);
    const n = ok ? BigInt(v) : -1n;
    if (n >= 0n && n < 1n << 64n) return n;
    throw new ParamError(`invalid hex or decimal integer "${v}"`);
  }
  throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type math.HexOrDecimal64`);
}

function percentiles(v: unknown): number[] {
  if (!Array.isArray(v)) throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type []float64`);
  return v.map((p) => {
    if (typeof p !== 'number') throw new ParamError(`json: cannot unmarshal ${jsonKind(p)} into Go value of type float64`);
    return p;
  });
}

/** Rewards at the given percentiles of gas used, tips sorted ascending (geth processBlock). */
function blockRewards(b: FeeHistoryBlock, pcts: number[]): bigint[] {
  if (b.txs.length === 0) return pcts.map(() => 0n);
  const sorted = [...b.txs].sort((x, y) => (x.tip < y.tip ? -1 : x.tip > y.tip ? 1 : 0));
  const out: bigint[] = [];
  let i = 0;
  let sum = sorted[0].gasUsed;
  for (const p of pcts) {
    const threshold = BigInt(Math.floor((Number(b.gasUsed) * p) / 100));
    while (sum < threshold && i < sorted.length - 1) {
      i++;
      sum += sorted[i].gasUsed;
    }
    out.push(sorted[i].tip);
  }
  return out;
}

export function ethFeeMethods(s: RpcServices): MethodTable {
  const { chain } = s.deps;
  return {
    eth_gasPrice: method([], async () => toQuantity((await chain.suggestTip()) + (chain.head().baseFeePerGas ?? 0n))),
    eth_maxPriorityFeePerGas: method([], async () => toQuantity(await chain.suggestTip())),
    eth_blobBaseFee: method([], async () => {
      const fee = await chain.headBlobBaseFee?.();
      return fee === undefined ? null : toQuantity(fee);
    }),
    eth_feeHistory: method(
      [required(hexOrDecimal64), required(blockNumber), optional(percentiles)] as const,
      async ([count, newestSel, pcts = []], ctx) => {
        for (let i = 0; i < pcts.length; i++) {
          const p = pcts[i];
          if (p < 0 || p > 100) throw new RpcError('SERVER_ERROR', `invalid reward percentile: ${p.toFixed(6)}`);
          if (i > 0 && p < pcts[i - 1])
            throw new RpcError('SERVER_ERROR', `invalid reward percentile: #${i - 1}:${pcts[i - 1].toFixed(6)} > #${i}:${p.toFixed(6)}`);
        }
        if (count === 0n) return { oldestBlock: '0x0' };
        const head = chain.head().number;
        const newest = s.blocks.number(newestSel) ?? head;
        if (newest > head) throw new RpcError('SERVER_ERROR', `request beyond head block: requested ${newest}, head ${head}`);
        const n = count > BigInt(s.options.feeHistoryMaxBlocks) ? BigInt(s.options.feeHistoryMaxBlocks) : count;
        const oldest = newest + 1n >= n ? newest + 1n - n : 0n;
        const baseFees: string[] = [];
        const ratios: number[] = [];
        const blobFees: string[] = [];
        const blobRatios: number[] = [];
        let blobSeen = false;
        let nextBlob: bigint | undefined;
        const rewards: string[][] = [];
        let next = 0n;
        for (let num = oldest; num <= newest; num++) {
          if (ctx.signal.aborted) throw new RpcError('TIMEOUT');
          const b = await chain.feeHistoryBlock(num);
          if (b === null) break;
          baseFees.push(toQuantity(b.baseFeePerGas));
          ratios.push(b.gasLimit === 0n ? 0 : Number(b.gasUsed) / Number(b.gasLimit));
          if (pcts.length > 0) rewards.push(blockRewards(b, pcts).map(toQuantity));
          next = b.nextBaseFeePerGas;
          blobFees.push(toQuantity(b.blob?.baseFee ?? 0n));
          blobRatios.push(b.blob === undefined || b.blob.maxGas === 0n ? 0 : Number(b.blob.gasUsed) / Number(b.blob.maxGas));
          if (b.blob !== undefined && (b.blob.gasUsed > 0n || b.blob.excess > 0n)) blobSeen = true;
          nextBlob = b.blob?.nextBaseFee;
        }
        if (ratios.length === 0) return { oldestBlock: '0x0' };
        baseFees.push(toQuantity(next));
        const out: Record<string, unknown> = { oldestBlock: toQuantity(oldest) };
        if (pcts.length > 0) out.reward = rewards;
        out.baseFeePerGas = baseFees;
        out.gasUsedRatio = ratios;
        // Blob fields when the range saw blob gas (decision 0033: all-zero blob columns are left out, as the
        // execution-apis Cancun suite records them).
        if (blobSeen) {
          blobFees.push(toQuantity(nextBlob ?? 0n));
          out.baseFeePerBlobGas = blobFees;
          out.blobGasUsedRatio = blobRatios;
        }
        return out;
      },
      { expensive: true },
    ),
  };
}
