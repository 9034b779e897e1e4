/**
 * Consensus checks of a header against its parent that do not need execution (geth's VerifyHeader minus the seal):
 * number, timestamp, extraData, gas limit bounds, gasUsed ≤ gasLimit, EIP-1559 base fee, fork-dependent fields, and
 * the difficulty rule of the chain's engine (ethash formula, Clique 1/2, zero after the merge). Every failure names
 * the field and both values.
 */
import { isForkActive, type ChainConfig, type Fork } from '../../chain/forks.ts';
import { EMPTY_OMMERS_HASH, type Header } from '../../chain/header/index.ts';
import { bytesToHex, equalBytes } from '../../primitives/hex.ts';
import { mismatch } from '../errors.ts';
import { expectedBaseFee, ELASTICITY_MULTIPLIER } from './baseFee.ts';
import { ethashDifficulty } from './ethash.ts';
import { expectedExcessBlobGas, GAS_PER_BLOB, maxBlobGasPerBlock } from './blobGas.ts';

/** geth's params: gas limit change bound divisor, minimum and maximum (2^63 - 1). */
const GAS_LIMIT_BOUND_DIVISOR = 1024n;
const MIN_GAS_LIMIT = 5000n;
const MAX_GAS_LIMIT = 2n ** 63n - 1n;
const MAX_EXTRA_DATA = 32;
const ZERO_NONCE = new Uint8Array(8);

/** What is known about the parent when checking a child. */
export interface ParentInfo {
  header: Header;
  hash: Uint8Array;
  fork: Fork;
}

/**
 * Throws BlockInvalidError (BLOCK_BAD_HEADER / BLOCK_BAD_PARENT) naming the first rule `header` breaks. `devHeader`:
 * a dev chain's own block whose base fee or gas limit the user chose (anvil_setNextBlockBaseFeePerGas,
 * evm_setBlockGasLimit): those two rules are skipped; only the producer's commit passes it, never an import.
 */
export function validateHeader(
  header: Header,
  parent: ParentInfo,
  config: ChainConfig,
  fork: Fork,
  { devHeader = false }: { devHeader?: boolean } = {},
): void {
  const p = parent.header;
  if (!equalBytes(header.parentHash, parent.hash))
    throw mismatch('BLOCK_BAD_PARENT', 'parentHash', bytesToHex(parent.hash), bytesToHex(header.parentHash));
  if (header.number !== p.number + 1n) throw mismatch('BLOCK_BAD_HEADER', 'number', p.number + 1n, header.number);
  if (header.timestamp <= p.timestamp) throw mismatch('BLOCK_BAD_HEADER', 'timestamp', `> ${p.timestamp}`, header.timestamp);
  if (config.clique === undefined && header.extraData.length > MAX_EXTRA_DATA) {
    throw mismatch('BLOCK_BAD_HEADER', 'extraData', `<= ${MAX_EXTRA_DATA} bytes`, `${header.extraData.length} bytes`);
  }
  if (header.gasLimit > MAX_GAS_LIMIT) throw mismatch('BLOCK_BAD_HEADER', 'gasLimit', `<= ${MAX_GAS_LIMIT}`, header.gasLimit);
  if (header.gasUsed > header.gasLimit) throw mismatch('BLOCK_BAD_HEADER', 'gasUsed', `<= gasLimit ${header.gasLimit}`, header.gasUsed);
  if (!devHeader) checkGasLimit(header, p, parent.fork, fork);
  if (isForkActive(fork, 'London')) {
    const expected = expectedBaseFee(p, parent.fork);
    if (header.baseFeePerGas === undefined || (!devHeader && header.baseFeePerGas !== expected))
      throw mismatch('BLOCK_BAD_HEADER', 'baseFeePerGas', expected, header.baseFeePerGas ?? 'none');
  } else if (header.baseFeePerGas !== undefined) {
    throw mismatch('BLOCK_BAD_HEADER', 'baseFeePerGas', 'absent before London', header.baseFeePerGas);
  }
  const shanghai = isForkActive(fork, 'Shanghai');
  if (shanghai !== (header.withdrawalsRoot !== undefined)) {
    throw mismatch(
      'BLOCK_BAD_HEADER',
      'withdrawalsRoot',
      shanghai ? 'present from Shanghai' : 'absent before Shanghai',
      header.withdrawalsRoot ? 'present' : 'absent',
    );
  }
  checkBlobFields(header, p, config, fork);
  const prague = isForkActive(fork, 'Prague');
  if (prague !== (header.requestsHash !== undefined)) {
    throw mismatch(
      'BLOCK_BAD_HEADER',
      'requestsHash',
      prague ? 'present from Prague' : 'absent before Prague',
      presence(header.requestsHash),
    );
  }
  checkDifficulty(header, p, config, fork);
}

function presence(v: unknown): string {
  return v === undefined ? 'absent' : 'present';
}

/** EIP-4844 / EIP-4788 header fields: present exactly from Cancun, blob gas within the fork's bounds. */
function checkBlobFields(header: Header, p: Header, config: ChainConfig, fork: Fork): void {
  const cancun = isForkActive(fork, 'Cancun');
  const expected = cancun ? 'present from Cancun' : 'absent before Cancun';
  for (const field of ['blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot'] as const) {
    if (cancun !== (header[field] !== undefined)) throw mismatch('BLOCK_BAD_HEADER', field, expected, presence(header[field]));
  }
  if (!cancun) return;
  const used = header.blobGasUsed ?? 0n;
  const max = maxBlobGasPerBlock(config, fork) ?? 0n;
  if (used > max) throw mismatch('BLOCK_BAD_HEADER', 'blobGasUsed', `<= ${max}`, used);
  if (used % GAS_PER_BLOB !== 0n) throw mismatch('BLOCK_BAD_HEADER', 'blobGasUsed', `a multiple of ${GAS_PER_BLOB}`, used);
  const excess = expectedExcessBlobGas(p, config, fork);
  if (header.excessBlobGas !== excess) throw mismatch('BLOCK_BAD_HEADER', 'excessBlobGas', excess, header.excessBlobGas ?? 'none');
}

function checkGasLimit(header: Header, p: Header, parentFork: Fork, fork: Fork): void {
  // At the London transition the parent's limit counts double (the target stays where the old limit was).
  const parentLimit = isForkActive(fork, 'London') && !isForkActive(parentFork, 'London') ? p.gasLimit * ELASTICITY_MULTIPLIER : p.gasLimit;
  const diff = header.gasLimit > parentLimit ? header.gasLimit - parentLimit : parentLimit - header.gasLimit;
  const limit = parentLimit / GAS_LIMIT_BOUND_DIVISOR;
  if (diff >= limit) throw mismatch('BLOCK_BAD_HEADER', 'gasLimit', `within ${parentLimit} ± ${limit - 1n}`, header.gasLimit);
  if (header.gasLimit < MIN_GAS_LIMIT) throw mismatch('BLOCK_BAD_HEADER', 'gasLimit', `>= ${MIN_GAS_LIMIT}`, header.gasLimit);
}

function checkDifficulty(header: Header, p: Header, config: ChainConfig, fork: Fork): void {
  // Clique chains keep their difficulty rule whatever the fork table says (PoA never merges).
  if (config.clique !== undefined) {
    if (header.difficulty !== 1n && header.difficulty !== 2n)
      throw mismatch('BLOCK_BAD_HEADER', 'difficulty', '1 or 2 (clique)', header.difficulty);
    return;
  }
  if (isForkActive(fork, 'Paris')) {
    if (header.difficulty !== 0n) throw mismatch('BLOCK_BAD_HEADER', 'difficulty', 0n, header.difficulty);
    if (!equalBytes(header.nonce, ZERO_NONCE))
      throw mismatch('BLOCK_BAD_HEADER', 'nonce', bytesToHex(ZERO_NONCE), bytesToHex(header.nonce));
    if (!equalBytes(header.ommersHash, EMPTY_OMMERS_HASH))
      throw mismatch('BLOCK_BAD_HEADER', 'ommersHash', bytesToHex(EMPTY_OMMERS_HASH), bytesToHex(header.ommersHash));
    return;
  }
  if (config.clique !== undefined) {
    if (header.difficulty !== 1n && header.difficulty !== 2n)
      throw mismatch('BLOCK_BAD_HEADER', 'difficulty', '1 or 2 (clique)', header.difficulty);
    return;
  }
  const expected = ethashDifficulty(
    { difficulty: p.difficulty, timestamp: p.timestamp, number: p.number, hasOmmers: !equalBytes(p.ommersHash, EMPTY_OMMERS_HASH) },
    header.timestamp,
    fork,
  );
  if (header.difficulty !== expected) throw mismatch('BLOCK_BAD_HEADER', 'difficulty', expected, header.difficulty);
}
