/**
 * EIP-7685 requests of a Prague block: deposits from the deposit contract's logs (EIP-6110), withdrawal and
 * consolidation requests from their system contracts (EIP-7002, EIP-7251), in type order.
 */
import { isForkActive, type ChainConfig, type Fork } from '../../chain/forks.ts';
import type { BlockRequests } from '../../chain/block/index.ts';
import type { Receipt } from '../../chain/receipt/index.ts';
import { concatBytes, equalBytes, hexToBytes } from '../../primitives/hex.ts';
import type { JournaledState } from '../../state/journaledState.ts';
import { BlockInvalidError } from '../errors.ts';
import type { EvmBlock, EvmHost } from '../evmHost.ts';
import { CONSOLIDATION_REQUESTS_ADDRESS, systemCall, WITHDRAWAL_REQUESTS_ADDRESS } from './systemCalls.ts';

/** keccak256("DepositEvent(bytes,bytes,bytes,bytes,bytes)"). */
const DEPOSIT_EVENT_TOPIC = hexToBytes('0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5');
/** The ABI layout geth accepts: five dynamic `bytes` of 48, 32, 8, 96 and 8 bytes at fixed offsets (576 bytes). */
const DEPOSIT_FIELDS: ReadonlyArray<readonly [offset: number, length: number]> = [
  [160, 48],
  [256, 32],
  [320, 8],
  [384, 96],
  [512, 8],
];

function word(data: Uint8Array, at: number): number {
  let n = 0;
  for (let i = at; i < at + 32; i++) n = n * 256 + (data[i] as number);
  return n;
}

function depositRequest(data: Uint8Array, txIndex: number): Uint8Array {
  const bad = (): BlockInvalidError =>
    new BlockInvalidError('BLOCK_BAD_REQUESTS', `invalid block: transaction ${txIndex}: deposit log with a malformed layout`, {
      txIndex,
    });
  if (data.length !== 576) throw bad();
  const parts: Uint8Array[] = [];
  for (const [i, [offset, length]] of DEPOSIT_FIELDS.entries()) {
    if (word(data, i * 32) !== offset || word(data, offset) !== length) throw bad();
    parts.push(data.subarray(offset + 32, offset + 32 + length));
  }
  return concatBytes(...parts);
}

/** The requests `receipts` and the system contracts produce, or undefined before Prague. */
export async function collectRequests(
  host: EvmHost,
  block: EvmBlock,
  state: JournaledState,
  config: Pick<ChainConfig, 'depositContractAddress'>,
  fork: Fork,
  receipts: readonly Receipt[],
): Promise<BlockRequests[] | undefined> {
  if (!isForkActive(fork, 'Prague')) return undefined;
  const deposits: Uint8Array[] = [];
  const contract = config.depositContractAddress;
  if (contract !== undefined) {
    for (const [i, r] of receipts.entries()) {
      for (const log of r.logs) {
        if (equalBytes(log.address, contract) && log.topics[0] !== undefined && equalBytes(log.topics[0], DEPOSIT_EVENT_TOPIC)) {
          deposits.push(depositRequest(log.data, i));
        }
      }
    }
  }
  return [
    { type: 0, data: concatBytes(...deposits) },
    { type: 1, data: await systemCall(host, block, state, WITHDRAWAL_REQUESTS_ADDRESS, new Uint8Array(0)) },
    { type: 2, data: await systemCall(host, block, state, CONSOLIDATION_REQUESTS_ADDRESS, new Uint8Array(0)) },
  ];
}
