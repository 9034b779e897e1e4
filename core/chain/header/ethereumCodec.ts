/**
 * Ethereum's header RLP: 15 fields up to Berlin, 16 with London's baseFeePerGas, 17 with Shanghai's withdrawalsRoot
 * (https://github.com/ethereum/go-ethereum/blob/master/core/types/block.go). Each field is checked for size and
 * canonical form, and errors name it (`header.stateRoot`). Later forks' fields (Cancun blobs) are refused by count.
 */
import { bigIntToBytes } from '../../primitives/hex.ts';
import { encodeRlp, expectBytes, expectList, expectUint, type RlpInput, type RlpItem } from '../../primitives/rlp.ts';
import type { HeaderCodec } from './codec.ts';
import { HeaderError } from './errors.ts';
import type { Header } from './types.ts';

const hash = (items: RlpItem[], i: number, name: string): Uint8Array => expectBytes(items[i], `header.${name}`, 32);

/** The RLP fields of an Ethereum header, in order. Exported for codecs that extend it. */
export function ethereumHeaderFields(h: Header): RlpInput[] {
  const fields: RlpInput[] = [
    h.parentHash,
    h.ommersHash,
    h.coinbase,
    h.stateRoot,
    h.transactionsRoot,
    h.receiptsRoot,
    h.logsBloom,
    bigIntToBytes(h.difficulty),
    bigIntToBytes(h.number),
    bigIntToBytes(h.gasLimit),
    bigIntToBytes(h.gasUsed),
    bigIntToBytes(h.timestamp),
    h.extraData,
    h.mixHash,
    h.nonce,
  ];
  if (h.baseFeePerGas !== undefined) fields.push(bigIntToBytes(h.baseFeePerGas));
  else if (h.withdrawalsRoot !== undefined) {
    throw new HeaderError('HEADER_BAD_FIELD', 'header.withdrawalsRoot requires header.baseFeePerGas', { field: 'withdrawalsRoot' });
  }
  if (h.withdrawalsRoot !== undefined) fields.push(h.withdrawalsRoot);
  return fields;
}

/** Decodes the first 15-17 fields of an Ethereum header list (without `rlp`). */
export function decodeEthereumHeaderFields(items: RlpItem[]): Header {
  const header: Header = {
    parentHash: hash(items, 0, 'parentHash'),
    ommersHash: hash(items, 1, 'ommersHash'),
    coinbase: expectBytes(items[2], 'header.coinbase', 20),
    stateRoot: hash(items, 3, 'stateRoot'),
    transactionsRoot: hash(items, 4, 'transactionsRoot'),
    receiptsRoot: hash(items, 5, 'receiptsRoot'),
    logsBloom: expectBytes(items[6], 'header.logsBloom', 256),
    difficulty: expectUint(items[7], 'header.difficulty', 32),
    number: expectUint(items[8], 'header.number', 32),
    gasLimit: expectUint(items[9], 'header.gasLimit', 8),
    gasUsed: expectUint(items[10], 'header.gasUsed', 8),
    timestamp: expectUint(items[11], 'header.timestamp', 8),
    extraData: expectBytes(items[12], 'header.extraData'),
    mixHash: hash(items, 13, 'mixHash'),
    nonce: expectBytes(items[14], 'header.nonce', 8),
  };
  if (items.length > 15) header.baseFeePerGas = expectUint(items[15], 'header.baseFeePerGas', 32);
  if (items.length > 16) header.withdrawalsRoot = hash(items, 16, 'withdrawalsRoot');
  return header;
}

/** The default codec: Ethereum mainnet headers through Shanghai. */
export const ethereumHeaderCodec: HeaderCodec = {
  name: 'ethereum',
  decode(item: RlpItem, rlp?: Uint8Array): Header {
    const items = expectList(item, 'header');
    if (items.length < 15 || items.length > 17) {
      throw new HeaderError('HEADER_FIELD_COUNT', `header: expected 15 to 17 fields (Frontier to Shanghai), got ${items.length}`, {
        fields: items.length,
      });
    }
    const header = decodeEthereumHeaderFields(items);
    header.rlp = rlp ?? encodeRlp(items);
    return header;
  },
  encode(header: Header): Uint8Array {
    return header.rlp ?? encodeRlp(ethereumHeaderFields(header));
  },
};
