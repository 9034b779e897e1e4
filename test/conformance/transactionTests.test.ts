/**
 * ethereum-tests TransactionTests through our decoder, static validity and sender recovery, for each requested fork
 * (default London and Shanghai; XONE_TX_TEST_FORKS=Berlin,London,... picks others, XONE_TX_TEST_DIR another folder).
 * A valid expectation must give the same hash, sender and intrinsic gas; an invalid one must be refused with a
 * typed error (an XoneError), never an untyped crash. Chain id 1, as the fillers use.
 */
import { describe, expect, it } from 'vitest';
import { XoneError } from '../../core/errors.ts';
import { TEST_FORK_ALIASES, type Fork } from '../../core/chain/forks.ts';
import {
  decodeTransaction,
  intrinsicGas,
  recoverSender,
  TxError,
  validateTransactionStatic,
  type Transaction,
  type TxErrorCode,
} from '../../core/chain/transaction/index.ts';
import { bytesToHex, looseHexToBytes } from '../../core/primitives/hex.ts';
import { createNativeSecp256k1, createNobleSecp256k1, nativeSecp256k1Available } from '../../core/primitives/secp256k1/index.ts';
import { conformancePath, jsonFilesUnder, readJson } from '../support/conformance.ts';

interface Expectation {
  hash?: string;
  sender?: string;
  intrinsicGas?: string;
  exception?: string;
}
interface TxTestCase {
  txbytes: string;
  result: Record<string, Expectation>;
}

const CHAIN_ID = 1n;

/**
 * The fillers' exception names and the codes that express them. A transaction can break several rules at once (an
 * unsupported type with an oversized field); the decoder reports the first it meets, so some names allow a
 * decode-stage code too. Names missing here (new files) only need some XoneError.
 */
const MALFORMED: TxErrorCode[] = ['TX_MALFORMED'];
const EXPECTED_CODES: Record<string, TxErrorCode[]> = {
  AddressTooShort: ['TX_INVALID_ADDRESS'],
  AddressTooLong: ['TX_INVALID_ADDRESS'],
  '2930AccessListAddressTooLong': ['TX_INVALID_ADDRESS'],
  '2930AccessListAddressTooShort': ['TX_INVALID_ADDRESS'],
  '2930AccessListStorageHashTooShort': ['TX_INVALID_STORAGE_KEY'],
  '2930AccessListStorageHashTooLong': ['TX_INVALID_STORAGE_KEY'],
  TR_IntrinsicGas: ['TX_INTRINSIC_GAS'],
  TR_InitCodeLimitExceeded: ['TX_INIT_CODE_TOO_LARGE'],
  TR_TypeNotSupported: ['TX_TYPE_NOT_SUPPORTED', 'TX_MALFORMED', 'TX_FIELD_TOO_LARGE'],
  TR_BlobDecodeError: MALFORMED,
  GasLimitPriceProductOverflow: ['TX_FEE_OVERFLOW'],
  '1559PriorityFeeGreaterThanBaseFee': ['TX_TIP_ABOVE_FEE_CAP'],
  '1559LeadingZerosBaseFee': MALFORMED,
  '1559LeadingZerosPriorityFee': MALFORMED,
  InvalidGasPrice: ['TX_FIELD_TOO_LARGE'],
  InvalidMaxPriorityFeePerGas: ['TX_FIELD_TOO_LARGE'],
  InvalidValue: ['TX_FIELD_TOO_LARGE'],
  InvalidGasLimit4: ['TX_FIELD_TOO_LARGE', 'TX_MALFORMED'], // one case is 9 bytes with a leading zero
  NonceTooLong: ['TX_FIELD_TOO_LARGE'],
  NonceMax: ['TX_NONCE_MAX'],
  InvalidChainID: ['TX_INVALID_CHAIN_ID', 'TX_INVALID_SIGNATURE'],
  InvalidVRS: ['TX_INVALID_SIGNATURE', 'TX_FIELD_TOO_LARGE', 'TX_INVALID_CHAIN_ID'],
  ECRecoveryFail: ['TX_INVALID_SENDER', 'TX_INTRINSIC_GAS'],
  LeadingZerosGasLimit: MALFORMED,
  LeadingZerosGasPrice: MALFORMED,
  LeadingZerosNonce: MALFORMED,
  LeadingZerosNonceSize: MALFORMED,
  LeadingZerosDataSize: MALFORMED,
  LeadingZerosR: MALFORMED,
  LeadingZerosS: MALFORMED,
  LeadingZerosV: MALFORMED,
  LeadingZerosValue: MALFORMED,
  InvalidData: MALFORMED,
  InvalidGasLimit5: MALFORMED,
  InvalidNonce: MALFORMED,
  InvalidR: MALFORMED,
  InvalidS: MALFORMED,
  InvalidTo: MALFORMED,
  RLP_TooFewElements: MALFORMED,
  RLP_TooManyElements: MALFORMED,
  RLP_Error_RLP_Size: MALFORMED,
  RLP_Error_Size_Information: MALFORMED,
  RLP_Error_EOF: MALFORMED,
};
const TEST_FORKS = (process.env.XONE_TX_TEST_FORKS ?? 'London,Shanghai').split(',').map((f) => f.trim());
const DIR = process.env.XONE_TX_TEST_DIR ?? conformancePath('ethereum-tests', 'TransactionTests');
const files = jsonFilesUnder(DIR);
/** Every valid vector's sender is recovered by each backend, so both stand on the same vectors. */
const BACKENDS = nativeSecp256k1Available() ? [createNativeSecp256k1(), createNobleSecp256k1()] : [createNobleSecp256k1()];

/** Everything a node does with raw transaction bytes before execution: decode, static rules, recover. */
function process_(bytes: Uint8Array, fork: Fork): { tx: Transaction; sender: Uint8Array } {
  const tx = decodeTransaction(bytes);
  validateTransactionStatic(tx, { fork, chainId: CHAIN_ID });
  return { tx, sender: recoverSender(tx) };
}

describe('TransactionTests', () => {
  it('found the vectors', () => expect(files.length).toBeGreaterThanOrEqual(100));

  for (const testFork of TEST_FORKS) {
    const fork = TEST_FORK_ALIASES[testFork];
    it(`knows the fork ${testFork}`, () => expect(fork).toBeDefined());
    if (!fork) continue;
    describe(testFork, () => {
      for (const file of files) {
        for (const [name, c] of Object.entries(readJson<Record<string, TxTestCase>>(file))) {
          const want = c.result[testFork];
          if (!want) continue; // the filler did not cover this fork for this case
          if (want.exception === undefined) {
            it(`valid: ${name}`, () => {
              const { tx, sender } = process_(looseHexToBytes(c.txbytes), fork);
              expect(bytesToHex(tx.hash)).toBe(want.hash);
              expect(bytesToHex(sender)).toBe(want.sender);
              expect(intrinsicGas(tx, fork)).toBe(BigInt(want.intrinsicGas as string));
              for (const backend of BACKENDS) expect(bytesToHex(recoverSender(tx, backend)), backend.name).toBe(want.sender);
            });
          } else {
            it(`invalid (${want.exception}): ${name}`, () => {
              let error: unknown;
              try {
                process_(looseHexToBytes(c.txbytes), fork);
              } catch (err) {
                error = err;
              }
              expect(error, `expected ${want.exception}`).toBeInstanceOf(XoneError);
              const allowed = EXPECTED_CODES[want.exception as string];
              if (allowed) {
                expect(error).toBeInstanceOf(TxError);
                expect(allowed, `${want.exception}: ${(error as Error).message}`).toContain((error as TxError).code);
              }
            });
          }
        }
      }
    });
  }
});
