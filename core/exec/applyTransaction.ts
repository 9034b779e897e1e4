/**
 * The state transition of one transaction (Yellow Paper §6, with EIP-1559 fees, EIP-2930 access lists, EIP-3529
 * refunds, EIP-3651 warm coinbase, EIP-3860 initcode limit, EIP-4844 blob gas, EIP-6780 SELFDESTRUCT, EIP-7702
 * authorizations, EIP-7623 calldata floor, EIP-7825 gas cap). Validity checks run first and throw `TxInvalidError`
 * without touching state; then either the fast path (value transfer to an account without code) or @ethereumjs/evm
 * runs the message, and fees settle: refund to the sender, priority fee to the coinbase, base fee burnt.
 */
import { Account, Address } from '@ethereumjs/util';
import { isForkActive } from '../chain/forks.ts';
import { toChecksumAddress } from '../primitives/address.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { EMPTY_ACCOUNT, hasCode, type AccountState } from '../state/account.ts';
import { credit, creditByKey } from './fees.ts';
import type { JournaledState } from '../state/journaledState.ts';
import { keyOf } from '../state/keys.ts';
import { TxInvalidError } from './errors.ts';
import type { EvmBlock, EvmHost } from './evmHost.ts';
import {
  effectiveGasPrice,
  floorDataGas,
  intrinsicGas,
  MAX_BLOBS_PER_TX,
  MAX_INIT_CODE_SIZE,
  MAX_TX_GAS,
  type AccessListItem,
} from '../chain/transaction/index.ts';
import { applyAuthorizations, isDelegation } from './authorizations.ts';
import { GAS_PER_BLOB } from './header/blobGas.ts';
import { describeEvmError } from './invalidOpcode.ts';
import type { Log } from '../chain/receipt/index.ts';
import type { BlockEnv, ExecTx, TxResult } from './types.ts';

const MAX_NONCE = 2n ** 64n - 1n;

/** Options for non-consensus callers (eth_call, estimateGas, createAccessList). */
export interface ApplyTxOptions {
  /** Skip the balance check (eth_call without funds): the sender is topped up to what it needs. */
  skipBalance?: boolean;
  /** Call semantics (eth_call): skip the nonce equality check and the EIP-3607 sender-has-code check. */
  skipNonce?: boolean;
  /** Return the access list the execution touched (eth_createAccessList). */
  reportAccessList?: boolean;
  /** eth_call semantics (geth's NoBaseFee): a message with zero fee fields skips the base-fee check. */
  noBaseFee?: boolean;
  /** eth_call semantics (geth's SkipTransactionChecks, go-ethereum#32641): EIP-7825's per-transaction cap does not apply. */
  noTxGasCap?: boolean;
  /** Never take the value-transfer fast path (so that a bench can compare). */
  noFastPath?: boolean;
}

/** `TxResult` plus the reported access list when asked for. */
export interface AppliedTx extends TxResult {
  accessList?: AccessListItem[];
  /** Whether the fast path ran. */
  fastPath: boolean;
  /** Gas used before the refund (eth_simulateV1's maxUsedGas); equal to gasUsed when nothing was refunded. */
  gasBeforeRefund?: bigint;
}

function invalid(
  code: ConstructorParameters<typeof TxInvalidError>[0],
  message: string,
  meta: Record<string, unknown> = {},
): TxInvalidError {
  return new TxInvalidError(code, `invalid transaction: ${message}`, meta);
}

/** Checks that need no execution; throws TxInvalidError naming the field and both values. */
/** The fork that introduced each transaction type. */
const TYPE_SINCE = ['Frontier', 'Berlin', 'London', 'Cancun', 'Prague'] as const;

/** Blob gas of a transaction (0 for every type but 3). */
export function blobGasOf(tx: Pick<ExecTx, 'blobVersionedHashes'>): bigint {
  return BigInt(tx.blobVersionedHashes?.length ?? 0) * GAS_PER_BLOB;
}

/** What validation found out: the intrinsic gas and the calldata floor the transaction pays at least. */
interface Validated {
  intrinsic: bigint;
  floor: bigint;
}

function validate(
  state: JournaledState,
  env: BlockEnv,
  tx: ExecTx,
  sender: Uint8Array,
  senderKey: string,
  gasAvailable: bigint,
  opts: ApplyTxOptions,
): Validated {
  const fork = env.fork;
  const since = TYPE_SINCE[tx.type];
  if (since === undefined) throw invalid('TX_TYPE_NOT_SUPPORTED', `type ${tx.type} is not supported`);
  if (!isForkActive(fork, since)) throw invalid('TX_TYPE_NOT_SUPPORTED', `type ${tx.type} before ${since} (fork ${fork})`);
  if (tx.type >= 3 && tx.to === undefined) throw invalid('TX_INVALID', `type ${tx.type} transaction cannot create a contract`);
  if (tx.type === 4 && (tx.authorizationList ?? []).length === 0) throw invalid('TX_INVALID', 'EIP-7702 transaction with empty auth list');
  if (opts.noTxGasCap !== true && isForkActive(fork, 'Osaka') && tx.gasLimit > MAX_TX_GAS) {
    throw invalid('TX_GAS_LIMIT_TOO_HIGH', `transaction gas limit too high (cap: ${MAX_TX_GAS}, tx: ${tx.gasLimit})`, {
      field: 'gasLimit',
      expected: `<= ${MAX_TX_GAS}`,
      actual: tx.gasLimit.toString(),
    });
  }
  if (tx.gasLimit > gasAvailable) {
    throw invalid('TX_GAS_LIMIT_REACHED', `gas limit reached: gasLimit ${tx.gasLimit} exceeds the block's remaining gas ${gasAvailable}`, {
      field: 'gasLimit',
      expected: `<= ${gasAvailable}`,
      actual: tx.gasLimit.toString(),
    });
  }
  // As geth's preCheck: only a checked nonce can be at its maximum (eth_call and eth_simulateV1 without validation
  // skip the nonce, and the sender's nonce wraps to 0 as geth's uint64 does: execution-apis ethSimulate-overflow-nonce).
  if (opts.skipNonce !== true && tx.nonce >= MAX_NONCE)
    throw invalid('TX_NONCE_MAX', `nonce has max value: address ${toChecksumAddress(sender)}, nonce: ${tx.nonce}`);
  const intrinsic = intrinsicGas(tx, fork);
  if (tx.gasLimit < intrinsic) {
    throw invalid('TX_INTRINSIC_GAS', `intrinsic gas too low: have ${tx.gasLimit}, want ${intrinsic}`, {
      field: 'gasLimit',
      expected: `>= ${intrinsic}`,
      actual: tx.gasLimit.toString(),
    });
  }
  const floor = floorDataGas(tx, fork);
  if (tx.gasLimit < floor) {
    throw invalid('TX_FLOOR_DATA_GAS', `insufficient gas for floor data gas cost: have ${tx.gasLimit}, want ${floor}`, {
      field: 'gasLimit',
      expected: `>= ${floor}`,
      actual: tx.gasLimit.toString(),
    });
  }
  const blobGas = blobGasOf(tx);
  if (tx.type === 3) checkBlobs(env, tx, sender, blobGas);
  if (tx.to === undefined && isForkActive(fork, 'Shanghai') && tx.data.length > MAX_INIT_CODE_SIZE) {
    throw invalid('TX_INIT_CODE_TOO_LARGE', `max initcode size exceeded: code size ${tx.data.length} limit ${MAX_INIT_CODE_SIZE}`);
  }
  // Legacy and 2930 transactions carry their gas price in maxFeePerGas too.
  const feeCap = tx.maxFeePerGas;
  const zeroFees = opts.noBaseFee === true && feeCap === 0n && tx.maxPriorityFeePerGas === 0n;
  if (env.baseFee !== undefined && !zeroFees) {
    if (tx.type >= 2 && tx.maxPriorityFeePerGas > tx.maxFeePerGas) {
      throw invalid(
        'TX_TIP_ABOVE_FEE_CAP',
        `max priority fee per gas higher than max fee per gas: address ${toChecksumAddress(sender)}, maxPriorityFeePerGas: ${tx.maxPriorityFeePerGas}, maxFeePerGas: ${tx.maxFeePerGas}`,
      );
    }
    if (feeCap < env.baseFee) {
      throw invalid(
        'TX_FEE_CAP_TOO_LOW',
        `max fee per gas less than block base fee: address ${toChecksumAddress(sender)}, maxFeePerGas: ${feeCap}, baseFee: ${env.baseFee}`,
        {
          field: 'maxFeePerGas',
          expected: `>= ${env.baseFee}`,
          actual: feeCap.toString(),
        },
      );
    }
  }
  const account = state.accountByKey(senderKey, sender) ?? EMPTY_ACCOUNT;
  // EIP-3607, with EIP-7702's exception: a delegated EOA still sends transactions.
  if (opts.skipNonce !== true && hasCode(account) && !(isForkActive(fork, 'Prague') && isDelegation(state.getCode(sender)))) {
    throw invalid(
      'TX_SENDER_NOT_EOA',
      `sender not an eoa: address ${toChecksumAddress(sender)}, len(code): ${state.getCode(sender).length}`,
    );
  }
  if (opts.skipNonce !== true && account.nonce !== tx.nonce) {
    throw invalid(
      'TX_NONCE_MISMATCH',
      `nonce too ${tx.nonce < account.nonce ? 'low' : 'high'}: address ${toChecksumAddress(sender)}, tx: ${tx.nonce} state: ${account.nonce}`,
      {
        field: 'nonce',
        expected: account.nonce.toString(),
        actual: tx.nonce.toString(),
      },
    );
  }
  const maxCost = tx.gasLimit * feeCap + tx.value + blobGas * (tx.maxFeePerBlobGas ?? 0n);
  if (account.balance < maxCost) {
    if (opts.skipBalance === true) {
      state.putAccount(sender, { ...account, balance: maxCost });
    } else {
      throw invalid(
        'TX_INSUFFICIENT_FUNDS',
        `insufficient funds for gas * price + value: address ${toChecksumAddress(sender)} have ${account.balance} want ${maxCost}`,
        {
          field: 'balance',
          expected: `>= ${maxCost}`,
          actual: account.balance.toString(),
        },
      );
    }
  }
  return { intrinsic, floor };
}

/** EIP-4844's per-transaction rules that depend on the block: the blob count bound and the blob fee cap. */
function checkBlobs(env: BlockEnv, tx: ExecTx, sender: Uint8Array, blobGas: bigint): void {
  const hashes = tx.blobVersionedHashes ?? [];
  if (hashes.length === 0) throw invalid('TX_BLOB_INVALID', 'blobless blob transaction');
  // EIP-7594: from Osaka one transaction carries at most 6 blobs, below the block's maximum (9 in Osaka).
  if (isForkActive(env.fork, 'Osaka') && hashes.length > MAX_BLOBS_PER_TX) {
    throw invalid('TX_BLOB_INVALID', `blob transaction has too many blobs: ${hashes.length} > ${MAX_BLOBS_PER_TX}`, {
      field: 'blobVersionedHashes',
      expected: `<= ${MAX_BLOBS_PER_TX} blobs`,
      actual: String(hashes.length),
    });
  }
  if (env.maxBlobGas !== undefined && blobGas > env.maxBlobGas) {
    throw invalid('TX_BLOB_INVALID', `blob gas ${blobGas} exceeds the block maximum ${env.maxBlobGas}`, {
      field: 'blobVersionedHashes',
      expected: `<= ${env.maxBlobGas / GAS_PER_BLOB} blobs`,
      actual: String(hashes.length),
    });
  }
  for (const [i, h] of hashes.entries()) {
    if (h[0] !== 0x01) throw invalid('TX_BLOB_INVALID', `blob ${i} has invalid hash version`);
  }
  const blobBaseFee = env.blobBaseFee ?? 0n;
  if ((tx.maxFeePerBlobGas ?? 0n) < blobBaseFee) {
    throw invalid(
      'TX_BLOB_FEE_CAP_TOO_LOW',
      // geth's ErrBlobFeeCapTooLow wording.
      `max fee per blob gas less than block blob gas fee: address ${toChecksumAddress(sender)} blobGasFeeCap: ${tx.maxFeePerBlobGas ?? 0n}, blobBaseFee: ${blobBaseFee}`,
      {
        field: 'maxFeePerBlobGas',
        expected: `>= ${blobBaseFee}`,
        actual: String(tx.maxFeePerBlobGas ?? 0n),
      },
    );
  }
}

/**
 * Applies `tx` from `sender` to `state` within `env`. `gasAvailable` is the block's gas limit minus gas used so
 * far. Throws TxInvalidError (state untouched) for a transaction no block may include.
 */
export async function applyTransaction(
  host: EvmHost,
  block: EvmBlock,
  state: JournaledState,
  env: BlockEnv,
  tx: ExecTx,
  sender: Uint8Array,
  gasAvailable: bigint,
  opts: ApplyTxOptions = {},
): Promise<AppliedTx> {
  // Map keys derived once per transaction (each costs a hex encoding and a fresh string hash).
  const senderKey = keyOf(sender);
  state.checkpoint();
  let validated: Validated;
  try {
    validated = validate(state, env, tx, sender, senderKey, gasAvailable, opts);
  } catch (err) {
    state.revert();
    throw err;
  }
  state.commit();
  const { intrinsic } = validated;
  const price = effectiveGasPrice(tx, env.baseFee);
  // Never negative: a valid transaction pays at least the base fee; only zero-fee calls price below it.
  const minerPrice = env.baseFee === undefined || price < env.baseFee ? (env.baseFee === undefined ? price : 0n) : price - env.baseFee;
  const to = tx.to;
  // The fast path is a plain value transfer: nothing that needs the EVM, blob fees or a calldata floor above 21000.
  const plain = tx.type < 3 && validated.floor <= intrinsic;
  if (to !== undefined && plain && opts.noFastPath !== true && opts.reportAccessList !== true) {
    const toKey = keyOf(to);
    if (!host.precompiles.has(toKey)) {
      const target = state.accountByKey(toKey, to);
      if (target === null || !hasCode(target))
        return transfer(state, env, tx, { sender, senderKey, to, toKey, target }, intrinsic, price, minerPrice);
    }
  }
  return runEvm(host, block, state, env, tx, sender, validated, price, minerPrice, opts);
}

/** The two parties of a fast-path transfer with their map keys, and the recipient as read before the transfer. */
interface TransferParties {
  sender: Uint8Array;
  senderKey: string;
  to: Uint8Array;
  toKey: string;
  target: AccountState | null;
}

/** Map key of each block's coinbase, derived once per block environment instead of once per transaction. */
const coinbaseKeys = new WeakMap<BlockEnv, string>();

function coinbaseKeyOf(env: BlockEnv): string {
  let key = coinbaseKeys.get(env);
  if (key === undefined) {
    key = keyOf(env.coinbase);
    coinbaseKeys.set(env, key);
  }
  return key;
}

/** Fast path: a value transfer to an account without code needs no EVM (gas used = intrinsic gas). */
function transfer(
  state: JournaledState,
  env: BlockEnv,
  tx: ExecTx,
  p: TransferParties,
  intrinsic: bigint,
  price: bigint,
  minerPrice: bigint,
): AppliedTx {
  const from = state.accountByKey(p.senderKey, p.sender) ?? EMPTY_ACCOUNT;
  state.setAccountByKey(p.senderKey, {
    ...from,
    nonce: (from.nonce + 1n) & MAX_NONCE,
    balance: from.balance - tx.value - intrinsic * price,
  });
  if (tx.value > 0n || !isForkActive(env.fork, 'SpuriousDragon')) {
    // Re-read: the recipient may be the sender itself.
    const target = p.toKey === p.senderKey ? state.accountByKey(p.toKey, p.to) : p.target;
    state.setAccountByKey(p.toKey, { ...(target ?? EMPTY_ACCOUNT), balance: (target?.balance ?? 0n) + tx.value });
  } else {
    credit(state, env, p.to, 0n);
  }
  creditByKey(state, env, coinbaseKeyOf(env), env.coinbase, intrinsic * minerPrice);
  return { status: 1, gasUsed: intrinsic, logs: NO_LOGS, returnValue: EMPTY_RETURN, effectiveGasPrice: price, fastPath: true };
}

/** Shared results of every fast-path transfer (never mutated: receipts and results only read them). */
const NO_LOGS: Log[] = [];
const EMPTY_RETURN = new Uint8Array(0);

async function runEvm(
  host: EvmHost,
  block: EvmBlock,
  state: JournaledState,
  env: BlockEnv,
  tx: ExecTx,
  sender: Uint8Array,
  validated: Validated,
  price: bigint,
  minerPrice: bigint,
  opts: ApplyTxOptions,
): Promise<AppliedTx> {
  const { intrinsic, floor } = validated;
  const evm = host.evm;
  const journal = evm.journal;
  const berlin = isForkActive(env.fork, 'Berlin');
  await journal.cleanup();
  if (opts.reportAccessList === true) journal.startReportingAccessList();
  await journal.checkpoint();
  try {
    for (const entry of tx.accessList) {
      const addr = keyOf(entry.address);
      journal.addAlwaysWarmAddress(addr, true);
      for (const slot of entry.storageKeys) journal.addAlwaysWarmSlot(addr, keyOf(slot), true);
    }
    const caller = new Address(sender);
    if (berlin) {
      for (const addr of host.warmPrecompiles) journal.addAlwaysWarmAddress(addr);
      journal.addAlwaysWarmAddress(keyOf(sender));
      if (tx.to !== undefined) journal.addAlwaysWarmAddress(keyOf(tx.to));
      if (isForkActive(env.fork, 'Shanghai')) journal.addAlwaysWarmAddress(keyOf(env.coinbase));
    }
    const from = state.getAccount(sender) ?? EMPTY_ACCOUNT;
    // Blob gas is bought at the block's blob base fee and burnt whatever the execution does (EIP-4844).
    const upfront = tx.gasLimit * price + blobGasOf(tx) * (env.blobBaseFee ?? 0n);
    const authorizations = tx.authorizationList !== undefined && tx.to !== undefined;
    // EIP-7702: the sender's nonce moves before the authorizations are applied (one signed by the sender itself
    // names nonce + 1), so the EVM must not bump it again.
    await journal.putAccount(
      caller,
      toEthAccount({ ...from, balance: from.balance - upfront, nonce: authorizations ? from.nonce + 1n : from.nonce }),
    );
    const authRefund = authorizations ? applyAuthorizations(host, state, env, tx.authorizationList ?? []) : 0n;
    evm.transientStorage.clear();
    const result = await evm.runCall({
      skipNonceIncrement: authorizations,
      blobVersionedHashes: tx.blobVersionedHashes?.map((h) => bytesToHex(h) as `0x${string}`),
      block,
      gasPrice: price,
      caller,
      origin: caller,
      gasLimit: tx.gasLimit - intrinsic,
      to: tx.to === undefined ? undefined : new Address(tx.to),
      value: tx.value,
      data: tx.data,
    });
    const exec = result.execResult;
    let gasUsed = exec.executionGasUsed + intrinsic;
    const gasBeforeRefund = gasUsed;
    const refundQuotient = isForkActive(env.fork, 'London') ? 5n : 2n;
    const refund = (exec.gasRefund ?? 0n) + authRefund;
    if (refund > 0n) {
      const cap = gasUsed / refundQuotient;
      gasUsed -= refund < cap ? refund : cap;
    }
    // EIP-7623: a data-heavy transaction pays at least the calldata floor.
    if (gasUsed < floor) gasUsed = floor;
    const after = state.getAccount(sender) ?? EMPTY_ACCOUNT;
    // A nonce past 2^64 - 1 (only an unchecked one gets there) wraps to 0, as geth's uint64.
    const nonce = after.nonce & MAX_NONCE;
    await journal.putAccount(caller, toEthAccount({ ...after, nonce, balance: after.balance + (tx.gasLimit - gasUsed) * price }));
    const minerAddress = new Address(env.coinbase);
    const miner = state.getAccount(env.coinbase) ?? EMPTY_ACCOUNT;
    await journal.putAccount(minerAddress, toEthAccount({ ...miner, balance: miner.balance + gasUsed * minerPrice }));
    if (exec.selfdestruct !== undefined) {
      // EIP-6780: from Cancun only an account created in this same transaction is removed.
      const created = isForkActive(env.fork, 'Cancun') ? (exec.createdAddresses ?? new Set<string>()) : undefined;
      for (const addrHex of exec.selfdestruct.keys()) {
        if (created !== undefined && !created.has(addrHex)) continue;
        await journal.deleteAccount(new Address(hexAddress(addrHex)));
      }
    }
    let accessList: AccessListItem[] | undefined;
    if (opts.reportAccessList === true && journal.accessList !== undefined) {
      accessList = [];
      for (const [addr, slots] of journal.accessList) {
        accessList.push({ address: hexAddress(addr), storageKeys: [...slots].map((s) => hexAddress(s)) });
      }
    }
    await journal.cleanup();
    await journal.commit();
    const logs: Log[] = (exec.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }));
    const failed = exec.exceptionError !== undefined;
    return {
      status: failed ? 0 : 1,
      gasUsed,
      logs: failed ? [] : logs,
      contractAddress: tx.to === undefined ? result.createdAddress?.bytes : undefined,
      returnValue: exec.returnValue,
      error: describeEvmError(exec.exceptionError?.error, exec.runState?.opCode, env.fork),
      effectiveGasPrice: price,
      accessList,
      fastPath: false,
      gasBeforeRefund,
    };
  } catch (err) {
    await journal.revert();
    throw err;
  } finally {
    journal.cleanJournal();
    state.clearOriginalStorage();
  }
}

function hexAddress(hex: string): Uint8Array {
  const clean = hex.startsWith('0x') ? hex.slice(2) : hex;
  const buf = Buffer.from(clean, 'hex');
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

function toEthAccount(a: AccountState): Account {
  return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash);
}
