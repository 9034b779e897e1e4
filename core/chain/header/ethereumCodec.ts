/**
 * Ethereum's header RLP: 15 fields up to Berlin, 16 with London's baseFeePerGas, 17 with Shanghai's withdrawalsRoot,
 * 20 with Cancun's blobGasUsed, excessBlobGas and parentBeaconBlockRoot, 21 with Prague's requestsHash
 * (https://github.com/ethereum/go-ethereum/blob/master/core/types/block.go). Each field is checked for size and
 * canonical form, and errors name it (`header.stateRoot`). Optional fields are positional: one is present only with
 * every field before it.
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
  const optional: [string, RlpInput | undefined][] = [
    ['baseFeePerGas', h.baseFeePerGas === undefined ? undefined : bigIntToBytes(h.baseFeePerGas)],
    ['withdrawalsRoot', h.withdrawalsRoot],
    ['blobGasUsed', h.blobGasUsed === undefined ? undefined : bigIntToBytes(h.blobGasUsed)],
    ['excessBlobGas', h.excessBlobGas === undefined ? undefined : bigIntToBytes(h.excessBlobGas)],
    ['parentBeaconBlockRoot', h.parentBeaconBlockRoot],
    ['requestsHash', h.requestsHash],
  ];
  let last = -1;
  for (const [i, [, value]] of optional.entries()) if (value !== undefined) last = i;
  for (let i = 0; i <= last; i++) {
    const [name, value] = optional[i] as [string, RlpInput | undefined];
    if (value === undefined) {
      const later = (optional[last] as [string, unknown])[0];
      throw new HeaderError('HEADER_BAD_FIELD', `header.${later} requires header.${name}`, { field: later });
    }
    fields.push(value);
  }
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
  if (items.length > 17) header.blobGasUsed = expectUint(items[17], 'header.blobGasUsed', 8);
  if (items.length > 18) header.excessBlobGas = expectUint(items[18], 'header.excessBlobGas', 8);
  if (items.length > 19) header.parentBeaconBlockRoot = hash(items, 19, 'parentBeaconBlockRoot');
  if (items.length > 20) header.requestsHash = hash(items, 20, 'requestsHash');
  return header;
}

/** Field counts a header may have: up to Berlin, London, Shanghai, Cancun, Prague (Osaka adds none). */
const FIELD_COUNTS: ReadonlySet<number> = new Set([15, 16, 17, 20, 21]);

/** The default codec: Ethereum mainnet headers through Osaka. */
export const ethereumHeaderCodec: HeaderCodec = {
  name: 'ethereum',
  decode(item: RlpItem, rlp?: Uint8Array): Header {
    const items = expectList(item, 'header');
    if (!FIELD_COUNTS.has(items.length)) {
      throw new HeaderError('HEADER_FIELD_COUNT', `header: expected 15, 16, 17, 20 or 21 fields (Frontier to Osaka), got ${items.length}`, {
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
