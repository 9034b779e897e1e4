/** Receipts: the execution-apis raw receipts reproduce the header's receiptsRoot; all encodings round trip. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  decodeReceipt,
  decodeReceiptFromNetworkItem,
  decodeReceiptsFromStorage,
  encodeReceipt,
  encodeReceiptForNetwork,
  encodeReceiptsForStorage,
  receiptsRoot,
  ReceiptError,
  type Receipt,
} from '../../../core/chain/receipt/index.ts';
import { decodeBlock } from '../../../core/chain/block/index.ts';
import { logsBloom } from '../../../core/chain/bloom.ts';
import { bytesToHex, hexToBytes } from '../../../core/primitives/hex.ts';
import { decodeRlp, encodeRlp, splitRlpStream, type RlpInput } from '../../../core/primitives/rlp.ts';
import { conformancePath } from '../../support/conformance.ts';

const log = {
  address: new Uint8Array(20).fill(0xaa),
  topics: [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)],
  data: Uint8Array.of(1, 2, 3),
};
const samples: Receipt[] = [
  { type: 0, status: 1, cumulativeGasUsed: 21000n, logsBloom: logsBloom([]), logs: [] },
  { type: 1, status: 0, cumulativeGasUsed: 50000n, logsBloom: logsBloom([log]), logs: [log] },
  { type: 2, status: 1, cumulativeGasUsed: 1n << 40n, logsBloom: logsBloom([log, log]), logs: [log, log] },
  { type: 0, postState: new Uint8Array(32).fill(9), cumulativeGasUsed: 7n, logsBloom: logsBloom([]), logs: [] },
];

describe('receipts', () => {
  it('default: debug_getRawReceipts of block 3 gives the receiptsRoot in chain.rlp', () => {
    const io = readFileSync(conformancePath('execution-apis-london', 'debug_getRawReceipts', 'get-block-n.io'), 'utf8');
    const response = JSON.parse(
      io
        .split('\n')
        .find((l) => l.startsWith('<<'))!
        .slice(3),
    ) as { result: string[] };
    const receipts = response.result.map((r) => decodeReceipt(hexToBytes(r)));
    const block3 = splitRlpStream(readFileSync(conformancePath('execution-apis-london', 'chain.rlp')))
      .map((b) => decodeBlock(b))
      .find((b) => b.header.number === 3n)!;
    expect(bytesToHex(receiptsRoot(receipts))).toBe(bytesToHex(block3.header.receiptsRoot));
    expect(receipts.map((r) => bytesToHex(encodeReceipt(r)))).toEqual(response.result);
  });

  it('behavior: consensus, network and storage encodings round trip', () => {
    for (const r of samples) {
      expect(decodeReceipt(encodeReceipt(r))).toEqual(r);
      expect(decodeReceiptFromNetworkItem(decodeRlp(encodeRlp(encodeReceiptForNetwork(r))))).toEqual(r);
    }
    expect(decodeReceiptsFromStorage(encodeReceiptsForStorage(samples))).toEqual(samples);
  });

  it('error: unknown type, bad status, wrong field size', () => {
    const legacy = encodeReceipt(samples[0]);
    expect(() => decodeReceipt(Uint8Array.of(5, ...legacy))).toThrow(ReceiptError);
    expect(() => decodeReceipt(Uint8Array.of(0, ...legacy))).toThrow(/unknown receipt type 0/);
    const fields = decodeRlp(legacy) as RlpInput[];
    expect(() => decodeReceipt(encodeRlp([Uint8Array.of(2), ...fields.slice(1)]))).toThrow(/receipt\.status/);
    expect(() => decodeReceipt(encodeRlp([fields[0], fields[1], new Uint8Array(255), fields[3]]))).toThrow(/receipt\.logsBloom/);
  });
});
