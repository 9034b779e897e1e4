/**
 * Runs ethereum/tests GeneralStateTests: for each post entry of a selected fork, one transaction on the `pre` state
 * in the `env` block, then the state root and the logs hash must match. Uses the same `applyTransaction` as block
 * import, so a pass here says the node's state transition agrees with the reference clients.
 */
import { blobParams, isForkActive, TEST_FORK_ALIASES, type Fork } from '../../chain/forks.ts';
import { blobBaseFee, maxBlobGasPerBlock } from '../header/blobGas.ts';
import { bytesToHex, equalBytes } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { addressFromPrivateKey } from '../../primitives/secp256k1/address.ts';
import { encodeRlp } from '../../primitives/rlp.ts';
import { applyAlloc } from '../../state/alloc.ts';
import { JournaledState } from '../../state/journaledState.ts';
import { MemoryState } from '../../state/memoryState.ts';
import { StateRootComputer } from '../../state/stateRoot.ts';
import { applyTransaction } from '../applyTransaction.ts';
import { TxInvalidError } from '../errors.ts';
import { EvmHostCache } from '../evmHost.ts';
import { creditZero } from '../fees.ts';
import type { Log } from '../../chain/receipt/index.ts';
import { MAX_UINT256, MAX_UINT64, type AccessListItem } from '../../chain/transaction/index.ts';
import type { BlockEnv, ExecTx } from '../types.ts';
import { allocOf, vAddress, vBig, vBytes, type VectorAccount } from './json.ts';
import type { CaseResult } from './runFiles.ts';

/** Forks whose post entries `xone statetest` runs by default (the node's target forks). */
export const DEFAULT_STATE_TEST_FORKS: readonly string[] = ['London', 'Shanghai', 'Cancun', 'Prague', 'Osaka'];

interface PostEntry {
  hash: string;
  logs: string;
  indexes: { data: number; gas: number; value: number };
  expectException?: string;
  txbytes?: string;
}

/** One test of a GeneralStateTests file. */
export interface StateTestJson {
  env: Record<string, string>;
  pre: Record<string, VectorAccount>;
  post: Record<string, PostEntry[]>;
  transaction: {
    data: string[];
    gasLimit: string[];
    value: string[];
    gasPrice?: string;
    maxFeePerGas?: string;
    maxPriorityFeePerGas?: string;
    nonce: string;
    to: string;
    sender?: string;
    secretKey?: string;
    /** Cancun blob and Prague authorization fields: such transactions are not valid in London or Shanghai. */
    blobVersionedHashes?: string[];
    maxFeePerBlobGas?: string;
    authorizationList?: Array<{ chainId: string; address: string; nonce: string; v?: string; yParity?: string; r: string; s: string }>;
    accessLists?: Array<Array<{ address: string; storageKeys: string[] }> | null>;
  };
}

/** Outcome of one (test, fork, index) case. */
export type StateCaseResult = CaseResult;

/**
 * The base fee of a London-or-later case whose env has none: retesteth's genesis base fee is 0x10, so the block after
 * it has 0x0a, the value geth's and the reference runners use.
 */
const DEFAULT_BASE_FEE = '0x0a';

/** geth's test BLOCKHASH: keccak256 of the decimal block number. */
function vmTestBlockHash(n: bigint): Uint8Array {
  return keccak256(new TextEncoder().encode(n.toString()));
}

/** keccak256(rlp(logs)) as the vectors' `logs` field holds it. */
function logsHash(logs: readonly Log[]): Uint8Array {
  return keccak256(encodeRlp(logs.map((l) => [l.address, l.topics, l.data])));
}

function buildTx(json: StateTestJson['transaction'], idx: PostEntry['indexes']): ExecTx {
  const accessListJson = json.accessLists?.[idx.data];
  const accessList: AccessListItem[] = (accessListJson ?? []).map((e) => ({
    address: vAddress(e.address),
    storageKeys: e.storageKeys.map(vBytes),
  }));
  const isFeeMarket = json.maxFeePerGas !== undefined;
  const gasPrice = isFeeMarket ? vBig(json.maxFeePerGas) : vBig(json.gasPrice);
  const extra: Partial<ExecTx> = {};
  let type = isFeeMarket ? 2 : json.accessLists !== undefined ? 1 : 0;
  if (json.blobVersionedHashes !== undefined) {
    type = 3;
    extra.blobVersionedHashes = json.blobVersionedHashes.map(vBytes);
    extra.maxFeePerBlobGas = vBig(json.maxFeePerBlobGas);
  }
  if (json.authorizationList !== undefined) {
    type = 4;
    extra.authorizationList = json.authorizationList.map((a) => ({
      chainId: vBig(a.chainId),
      address: vAddress(a.address),
      nonce: vBig(a.nonce),
      yParity: vBig(a.yParity ?? a.v),
      r: vBig(a.r),
      s: vBig(a.s),
    }));
  }
  return {
    ...extra,
    type,
    nonce: vBig(json.nonce),
    gasLimit: vBig(json.gasLimit[idx.gas]),
    gasPrice,
    maxFeePerGas: gasPrice,
    // As geth's runner: a fee-market transaction without a tip field tips up to its fee cap.
    maxPriorityFeePerGas: isFeeMarket && json.maxPriorityFeePerGas !== undefined ? vBig(json.maxPriorityFeePerGas) : gasPrice,
    to: json.to === '' || json.to === undefined ? undefined : vAddress(json.to),
    value: vBig(json.value[idx.value]),
    data: vBytes(json.data[idx.data]),
    accessList,
  };
}

/**
 * A field no transaction encoding can carry (a value over 2^256-1, a gas limit over 2^64-1) makes the vector's
 * transaction undecodable: it is invalid, as geth's runner reports it (TR_RLP_WRONGVALUE), not a runner error.
 */
function checkEncodable(tx: ExecTx): void {
  const words: Array<[string, bigint]> = [
    ['value', tx.value],
    ['gasPrice', tx.gasPrice],
    ['maxFeePerGas', tx.maxFeePerGas],
    ['maxPriorityFeePerGas', tx.maxPriorityFeePerGas],
  ];
  for (const [field, v] of words) if (v > MAX_UINT256) throw new TxInvalidError('TX_INVALID', `${field} higher than 2^256-1: ${v}`);
  if (tx.gasLimit > MAX_UINT64) throw new TxInvalidError('TX_INVALID', `gas limit higher than 2^64-1: ${tx.gasLimit}`);
  if (tx.nonce > MAX_UINT64) throw new TxInvalidError('TX_INVALID', `nonce higher than 2^64-1: ${tx.nonce}`);
}

/** Blob gas price and bound of the test's block (Cancun on). */
function blobEnv(fork: Fork, env: Record<string, string>): Pick<BlockEnv, 'blobBaseFee' | 'maxBlobGas'> {
  const params = blobParams({}, fork);
  if (params === undefined) return {};
  return { blobBaseFee: blobBaseFee(vBig(env.currentExcessBlobGas ?? '0x0'), params), maxBlobGas: maxBlobGasPerBlock({}, fork) };
}

/** Runs every selected post entry of one test; never throws for a failing case (it is reported). */
export async function runStateTest(
  name: string,
  test: StateTestJson,
  forks: readonly string[] = DEFAULT_STATE_TEST_FORKS,
): Promise<StateCaseResult[]> {
  const results: StateCaseResult[] = [];
  const hosts = new EvmHostCache();
  for (const [forkName, entries] of Object.entries(test.post)) {
    const fork: Fork | undefined = TEST_FORK_ALIASES[forkName];
    if (!forks.includes(forkName) || fork === undefined) {
      for (const [i] of entries.entries()) results.push({ name: `${name}/${forkName}/${i}`, ok: true, skipped: true });
      continue;
    }
    for (const [i, entry] of entries.entries()) {
      const caseName = `${name}/${forkName}/${i} (d${entry.indexes.data} g${entry.indexes.gas} v${entry.indexes.value})`;
      try {
        const reason = await runCase(test, fork, entry, hosts);
        results.push(reason === undefined ? { name: caseName, ok: true } : { name: caseName, ok: false, reason });
      } catch (err) {
        results.push({ name: caseName, ok: false, reason: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  return results;
}

async function runCase(test: StateTestJson, fork: Fork, entry: PostEntry, hosts: EvmHostCache): Promise<string | undefined> {
  const backend = new MemoryState();
  const preRoot = applyAlloc(backend, allocOf(test.pre));
  const env = test.env;
  const paris = isForkActive(fork, 'Paris');
  const blockEnv: BlockEnv = {
    chainId: 1n,
    fork,
    number: vBig(env.currentNumber),
    timestamp: vBig(env.currentTimestamp),
    coinbase: vAddress(env.currentCoinbase as string),
    gasLimit: vBig(env.currentGasLimit),
    difficulty: paris ? 0n : vBig(env.currentDifficulty),
    prevRandao: paris && env.currentRandom !== undefined ? vBytes(env.currentRandom) : new Uint8Array(32),
    baseFee: isForkActive(fork, 'London') ? vBig(env.currentBaseFee ?? DEFAULT_BASE_FEE) : undefined,
    ...blobEnv(fork, env),
    blockHash: vmTestBlockHash,
  };
  const state = new JournaledState(backend);
  const host = hosts.get(blockEnv.chainId, fork, state);
  const block = host.bind(state, blockEnv);
  const tx = buildTx(test.transaction, entry.indexes);
  const sender =
    test.transaction.sender !== undefined ? vAddress(test.transaction.sender) : addressFromPrivateKey(vBytes(test.transaction.secretKey));
  let logs: Log[] = [];
  let invalidReason: string | undefined;
  try {
    checkEncodable(tx);
    const result = await applyTransaction(host, block, state, blockEnv, tx, sender, blockEnv.gasLimit);
    logs = result.logs;
  } catch (err) {
    if (!(err instanceof TxInvalidError)) throw err;
    invalidReason = err.message;
  }
  if (entry.expectException !== undefined && invalidReason === undefined)
    return `expected exception ${entry.expectException}, transaction was valid`;
  if (entry.expectException === undefined && invalidReason !== undefined) return `unexpected exception: ${invalidReason}`;
  const expectedRoot = vBytes(entry.hash);
  // An invalid transaction changes nothing. Fillers record either the pre state (the transaction dropped before
  // anything is touched) or the state after the zero-reward touch below; geth's runner checks no root for an
  // expected exception, so both are accepted here (an empty coinbase account in `pre` is where they differ).
  const rootNow = (): Uint8Array =>
    new StateRootComputer(backend.nodes, preRoot).apply(state.changes(), (key) => state.accountByKey(key)).root;
  let root = invalidReason === undefined ? undefined : rootNow();
  if (root === undefined || !equalBytes(root, expectedRoot)) {
    // As geth's runner: touch the coinbase with a zero reward so an empty coinbase is removed under EIP-161.
    creditZero(state, blockEnv);
    root = rootNow();
  }
  if (!equalBytes(root, expectedRoot)) return `stateRoot: expected ${entry.hash}, got ${bytesToHex(root)}`;
  const gotLogs = logsHash(logs);
  if (!equalBytes(gotLogs, vBytes(entry.logs))) return `logsHash: expected ${entry.logs}, got ${bytesToHex(gotLogs)}`;
  return undefined;
}
