/** Cancun, Prague and Osaka in the chain layer: genesis keys, header fields, type 3 and 4 envelopes, static rules. */
import { describe, expect, it } from 'vitest';
import { EMPTY_REQUESTS_HASH } from '../../core/chain/block/index.ts';
import { blobParams, DEFAULT_BLOB_SCHEDULE, forkAt } from '../../core/chain/forks.ts';
import { parseGenesis } from '../../core/chain/genesis/index.ts';
import { ethereumHeaderCodec, headerHash } from '../../core/chain/header/index.ts';
import {
  decodeTransaction,
  recoverAuthority,
  recoverSender,
  signAuthorization,
  signTransaction,
  type TxError,
  validateTransactionStatic,
  type UnsignedTransaction,
} from '../../core/chain/transaction/index.ts';
import { testingAddress, testingPrivateKey } from '../../core/chain/transaction/testing.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { decodeRlp } from '../../core/primitives/rlp.ts';
import { BLOCK_FORKS_AT_GENESIS } from '../support/genesisConfig.ts';

const config = {
  chainId: 2040,
  ...BLOCK_FORKS_AT_GENESIS,
  shanghaiTime: 0,
  cancunTime: 0,
  pragueTime: 0,
  osakaTime: 0,
  clique: { period: 2, epoch: 30000 },
};
const genesis = (over: Record<string, unknown> = {}): unknown => ({
  config: { ...config, ...over },
  alloc: {},
  gasLimit: '0x1c9c380',
  difficulty: '0x1',
  extraData: '0x' + '00'.repeat(32) + '11'.repeat(20) + '00'.repeat(65),
});

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (err) {
    return (err as TxError).code;
  }
  return undefined;
}

describe('genesis on the newest forks', () => {
  it('default: Osaka at genesis gets the blob header fields, a zero beacon root and the empty requests hash', () => {
    const g = parseGenesis(genesis());
    expect(forkAt(g.config, 0, 0)).toBe('Osaka');
    expect(g.genesisHeader.blobGasUsed).toBe(0n);
    expect(g.genesisHeader.excessBlobGas).toBe(0n);
    expect(bytesToHex(g.genesisHeader.parentBeaconBlockRoot as Uint8Array)).toBe(`0x${'00'.repeat(32)}`);
    expect(bytesToHex(g.genesisHeader.requestsHash as Uint8Array)).toBe(bytesToHex(EMPTY_REQUESTS_HASH));
    // 21 fields, and the hash of what we encode is the hash of what we decode.
    const rlp = ethereumHeaderCodec.encode(g.genesisHeader);
    expect((decodeRlp(rlp) as unknown[]).length).toBe(21);
    const again = ethereumHeaderCodec.decode(decodeRlp(rlp));
    expect(bytesToHex(headerHash(again))).toBe(bytesToHex(headerHash(g.genesisHeader)));
  });

  it('args: blobSchedule, bpo times and depositContractAddress as geth writes them', () => {
    const g = parseGenesis(
      genesis({
        bpo1Time: 100,
        bpo2Time: 200,
        blobSchedule: {
          cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
          bpo1: { target: 9, max: 12, baseFeeUpdateFraction: '0x7f5a51' },
        },
        depositContractAddress: '0x00000000219ab540356cBB839Cbe05303d7705Fa',
      }),
    );
    expect(forkAt(g.config, 1, 150)).toBe('BPO1');
    expect(forkAt(g.config, 1, 250)).toBe('BPO2');
    expect(blobParams(g.config, 'BPO1')).toEqual({ target: 9, max: 12, baseFeeUpdateFraction: 0x7f5a51n });
    // A fork missing from the schedule takes mainnet's values.
    expect(blobParams(g.config, 'BPO2')).toEqual(DEFAULT_BLOB_SCHEDULE.BPO2);
    expect(bytesToHex(g.config.depositContractAddress as Uint8Array)).toBe('0x00000000219ab540356cbb839cbe05303d7705fa');
  });
});

const key = testingPrivateKey(1);
const base: UnsignedTransaction = {
  type: 2,
  chainId: 2040n,
  nonce: 0n,
  maxFeePerGas: 10n ** 10n,
  maxPriorityFeePerGas: 1n,
  gasLimit: 100_000n,
  to: hexToBytes(`0x${'42'.repeat(20)}`),
  value: 0n,
  data: new Uint8Array(0),
};

describe('type 3 and type 4 transactions', () => {
  it('default: a blob transaction round-trips, recovers its sender and passes the static rules under Cancun', () => {
    const hash = new Uint8Array(32);
    hash[0] = 1;
    const tx = signTransaction({ ...base, type: 3, maxFeePerBlobGas: 7n, blobVersionedHashes: [hash] }, key);
    const back = decodeTransaction(tx.raw);
    expect(back.type).toBe(3);
    expect(back.maxFeePerBlobGas).toBe(7n);
    expect(back.blobVersionedHashes?.map(bytesToHex)).toEqual([bytesToHex(hash)]);
    expect(bytesToHex(recoverSender(back))).toBe(bytesToHex(testingAddress(1)));
    expect(validateTransactionStatic(back, { fork: 'Cancun', chainId: 2040n })).toBeUndefined();
    expect(codeOf(() => validateTransactionStatic(back, { fork: 'Shanghai', chainId: 2040n }))).toBe('TX_TYPE_NOT_SUPPORTED');
  });

  it('default: a set-code transaction round-trips and its authorization recovers the authority', () => {
    const auth = signAuthorization({ chainId: 2040n, address: hexToBytes(`0x${'77'.repeat(20)}`), nonce: 5n }, testingPrivateKey(2));
    const tx = signTransaction({ ...base, type: 4, authorizationList: [auth] }, key);
    const back = decodeTransaction(tx.raw);
    expect(back.authorizationList).toHaveLength(1);
    expect(bytesToHex(recoverAuthority(back.authorizationList![0]!)!)).toBe(bytesToHex(testingAddress(2)));
    expect(validateTransactionStatic(back, { fork: 'Prague', chainId: 2040n })).toBeUndefined();
    expect(codeOf(() => validateTransactionStatic(back, { fork: 'Cancun', chainId: 2040n }))).toBe('TX_TYPE_NOT_SUPPORTED');
    // A high-s authorization is one EIP-7702 skips.
    expect(recoverAuthority({ ...auth, s: 2n ** 255n })).toBeUndefined();
  });

  it('error: blob and set-code rules, the EIP-7825 gas cap and the EIP-7623 floor', () => {
    const badVersion = signTransaction({ ...base, type: 3, maxFeePerBlobGas: 1n, blobVersionedHashes: [new Uint8Array(32)] }, key);
    expect(codeOf(() => validateTransactionStatic(badVersion, { fork: 'Cancun', chainId: 2040n }))).toBe('TX_BLOB_INVALID');
    const noBlobs = signTransaction({ ...base, type: 3, maxFeePerBlobGas: 1n, blobVersionedHashes: [] }, key);
    expect(codeOf(() => validateTransactionStatic(noBlobs, { fork: 'Cancun', chainId: 2040n }))).toBe('TX_BLOB_INVALID');
    const noAuths = signTransaction({ ...base, type: 4, authorizationList: [] }, key);
    expect(codeOf(() => validateTransactionStatic(noAuths, { fork: 'Prague', chainId: 2040n }))).toBe('TX_EMPTY_AUTH_LIST');
    const big = signTransaction({ ...base, gasLimit: 2n ** 24n + 1n }, key);
    expect(codeOf(() => validateTransactionStatic(big, { fork: 'Prague', chainId: 2040n }))).toBeUndefined();
    expect(codeOf(() => validateTransactionStatic(big, { fork: 'Osaka', chainId: 2040n }))).toBe('TX_GAS_LIMIT_TOO_HIGH');
    // 1,000 non-zero bytes: intrinsic 21000 + 16,000 fits 40,000, the Prague floor 21000 + 40,000 does not.
    const heavy = signTransaction({ ...base, gasLimit: 40_000n, data: new Uint8Array(1000).fill(1) }, key);
    expect(codeOf(() => validateTransactionStatic(heavy, { fork: 'Cancun', chainId: 2040n }))).toBeUndefined();
    expect(codeOf(() => validateTransactionStatic(heavy, { fork: 'Prague', chainId: 2040n }))).toBe('TX_FLOOR_DATA_GAS');
    expect(codeOf(() => decodeTransaction(hexToBytes('0x03c0')))).toBe('TX_MALFORMED');
  });
});
