/**
 * Headers in the JSON shape of ethereum/tests fixtures (`genesisBlockHeader`, `blockHeader`): field names as geth's
 * retesteth writes them (bloom, uncleHash, receiptTrie, transactionsTrie), quantities as hex that may carry leading
 * zeros ("0x00"). Used by the genesis builder and the blockchain-test runner.
 */
import { XoneError } from '../../errors.ts';
import { hexToBytes } from '../../primitives/hex.ts';
import type { Header } from './types.ts';

export class TestHeaderJsonError extends XoneError<'TEST_HEADER_BAD_FIELD'> {}

type Json = Record<string, unknown>;

function str(obj: Json, key: string): string {
  const v = obj[key];
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]*$/.test(v)) {
    throw new TestHeaderJsonError('TEST_HEADER_BAD_FIELD', `test header: ${key} must be a 0x hex string`, { key });
  }
  return v;
}

function bytes(obj: Json, key: string, length?: number): Uint8Array {
  const b = hexToBytes(str(obj, key), key);
  if (length !== undefined && b.length !== length) {
    throw new TestHeaderJsonError('TEST_HEADER_BAD_FIELD', `test header: ${key} must be ${length} bytes, got ${b.length}`, { key });
  }
  return b;
}

function uint(obj: Json, key: string): bigint {
  const s = str(obj, key);
  return s === '0x' ? 0n : BigInt(s);
}

/** The header a fixture describes (no `rlp`), plus its declared hash when present. */
export function headerFromTestJson(obj: Json): { header: Header; hash?: Uint8Array } {
  const header: Header = {
    parentHash: bytes(obj, 'parentHash', 32),
    ommersHash: bytes(obj, 'uncleHash', 32),
    coinbase: bytes(obj, 'coinbase', 20),
    stateRoot: bytes(obj, 'stateRoot', 32),
    transactionsRoot: bytes(obj, 'transactionsTrie', 32),
    receiptsRoot: bytes(obj, 'receiptTrie', 32),
    logsBloom: bytes(obj, 'bloom', 256),
    difficulty: uint(obj, 'difficulty'),
    number: uint(obj, 'number'),
    gasLimit: uint(obj, 'gasLimit'),
    gasUsed: uint(obj, 'gasUsed'),
    timestamp: uint(obj, 'timestamp'),
    extraData: bytes(obj, 'extraData'),
    mixHash: bytes(obj, 'mixHash', 32),
    nonce: bytes(obj, 'nonce', 8),
  };
  if (obj.baseFeePerGas !== undefined) header.baseFeePerGas = uint(obj, 'baseFeePerGas');
  if (obj.withdrawalsRoot !== undefined) header.withdrawalsRoot = bytes(obj, 'withdrawalsRoot', 32);
  if (obj.blobGasUsed !== undefined) header.blobGasUsed = uint(obj, 'blobGasUsed');
  if (obj.excessBlobGas !== undefined) header.excessBlobGas = uint(obj, 'excessBlobGas');
  if (obj.parentBeaconBlockRoot !== undefined) header.parentBeaconBlockRoot = bytes(obj, 'parentBeaconBlockRoot', 32);
  if (obj.requestsHash !== undefined) header.requestsHash = bytes(obj, 'requestsHash', 32);
  return { header, hash: obj.hash === undefined ? undefined : bytes(obj, 'hash', 32) };
}
