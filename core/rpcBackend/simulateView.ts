/**
 * The RPC's SimulateView over the store: eth_simulateV1 on the state after a canonical block (HistoricalState) with a
 * scratch trie for the simulated blocks' state roots, then geth's answer shape: each block as eth_getBlockByNumber
 * would show it (hashes or full transactions) with its `calls` (returnData, logs, gasUsed, maxUsedGas, status,
 * error). Runs as a state-reading job: the RPC execution pool can take it over unchanged.
 */
import { encodeBlock as encodeBlockRlp } from '../chain/block/index.ts';
import type { ChainConfig } from '../chain/forks.ts';
import { ethereumHeaderCodec } from '../chain/header/index.ts';
import type { CallRequest as ExecCallRequest } from '../exec/call/types.ts';
import type { EvmHostPool } from '../exec/evmHostPool.ts';
import {
  MAX_SIMULATE_BLOCKS,
  simulate,
  SimulateError,
  type SimBlock,
  type SimBlockRequest,
  type SimErrorCode,
} from '../exec/simulate/simulate.ts';
import { decodeRlp } from '../primitives/rlp.ts';
import { bytesToHex, toQuantity } from '../primitives/hex.ts';
import { encodeBlock } from '../rpc/encode/block.ts';
import { encodeLog } from '../rpc/encode/receipt.ts';
import { RpcError } from '../rpc/errors.ts';
import type { HeaderData } from '../rpc/encode/types.ts';
import type { SimulateView } from '../rpc/interface.ts';
import type { SimulatePayload } from '../rpc/simulateParams.ts';
import { HistoricalState } from '../state/store/history.ts';
import { scratchRootsAt } from '../state/store/scratchRoots.ts';
import type { ChainReader } from '../store/index.ts';
import { blockData } from './convert.ts';
import { callRequestOf } from './execView.ts';

/** The simulator's errors that answer with a generic JSON-RPC code rather than one of the spec's own. */
type GenericSimError = 'SIM_INVALID_PARAMS' | 'SIM_SERVER_ERROR' | 'SIM_INTERNAL';
const GENERIC_CODES: Record<GenericSimError, 'INVALID_PARAMS' | 'SERVER_ERROR' | 'INTERNAL'> = {
  SIM_INVALID_PARAMS: 'INVALID_PARAMS',
  SIM_SERVER_ERROR: 'SERVER_ERROR',
  SIM_INTERNAL: 'INTERNAL',
};

export interface SimulateViewOptions {
  gasCap: bigint;
  timeoutMs: number;
  /** The thread's idle EVMs (core/exec/evmHostPool.ts): a new EVM per request without it. */
  hosts?: EvmHostPool;
}

export class StoreSimulateView implements SimulateView {
  constructor(
    private readonly reader: ChainReader,
    private readonly config: ChainConfig,
    private readonly options: SimulateViewOptions,
  ) {}

  async simulate(payload: SimulatePayload, at: HeaderData): Promise<string> {
    // geth's SimulateV1 refuses a request without blocks before anything else (execution-apis ethSimulate-empty-ethSimulate).
    if (payload.blocks.length === 0) throw new RpcError('INVALID_PARAMS', 'empty input');
    if (payload.blocks.length > MAX_SIMULATE_BLOCKS)
      throw new RpcError('SIM_TOO_MANY_BLOCKS', `too many blocks: ${payload.blocks.length} > ${MAX_SIMULATE_BLOCKS}`);
    const row = this.reader.getHeaderByNumber(Number(at.number));
    if (!row) throw new RpcError('SERVER_ERROR', 'header not found');
    const header = ethereumHeaderCodec.decode(decodeRlp(row.headerRlp), row.headerRlp);
    const requests: SimBlockRequest[] = payload.blocks.map((b) => ({
      ...(b.blockOverrides ? { blockOverrides: b.blockOverrides } : {}),
      ...(b.stateOverrides ? { stateOverrides: b.stateOverrides } : {}),
      calls: b.calls.map((c) => callRequestOf(c) as ExecCallRequest),
    }));
    let blocks: SimBlock[];
    try {
      blocks = await simulate(
        requests,
        { header, hash: row.hash },
        new HistoricalState(this.reader, Number(at.number)),
        scratchRootsAt(this.reader, Number(at.number)),
        this.config,
        (n) => this.reader.getCanonicalHash(Number(n)),
        {
          validation: payload.validation,
          traceTransfers: payload.traceTransfers,
          gasCap: this.options.gasCap,
          deadline: Date.now() + this.options.timeoutMs,
          ...(this.options.hosts !== undefined ? { hosts: this.options.hosts } : {}),
        },
      );
    } catch (err) {
      if (err instanceof SimulateError) {
        const code = err.code;
        if (code in GENERIC_CODES) throw new RpcError(GENERIC_CODES[code as GenericSimError], err.message);
        throw new RpcError(code as Exclude<SimErrorCode, GenericSimError>, err.message);
      }
      throw err;
    }
    return JSON.stringify(blocks.map((b) => blockJson(b, payload.returnFullTransactions)));
  }
}

function blockJson(b: SimBlock, fullTx: boolean): Record<string, unknown> {
  const block = { header: b.header, transactions: b.transactions, ommers: [], ...(b.header.withdrawalsRoot ? { withdrawals: [] } : {}) };
  const size = encodeBlockRlp(block).length;
  const json = encodeBlock(blockData(block, b.hash, b.senders, size, []), fullTx);
  // geth numbers a block's logs by its tracer's running count (SimCall.logOrder), in order without traceTransfers.
  let logBase = 0;
  json.calls = b.calls.map((c, i) => {
    const base = logBase;
    logBase += c.logOrder?.emitted ?? c.logs.length;
    const out: Record<string, unknown> = {
      returnData: bytesToHex(c.returnData),
      logs: c.logs.map((l, j) =>
        encodeLog({
          ...l,
          blockNumber: b.header.number,
          blockHash: b.hash,
          blockTimestamp: b.header.timestamp,
          transactionHash: b.transactions[i].hash,
          transactionIndex: i,
          logIndex: base + (c.logOrder?.indexes[j] ?? j),
          removed: false,
        }),
      ),
      gasUsed: toQuantity(c.gasUsed),
      maxUsedGas: toQuantity(c.maxUsedGas),
      status: toQuantity(c.status),
    };
    if (c.error) out.error = { code: c.error.code, message: c.error.message, ...(c.error.data ? { data: bytesToHex(c.error.data) } : {}) };
    return out;
  });
  return Object.fromEntries(Object.entries(json).sort(([a], [b2]) => (a < b2 ? -1 : a > b2 ? 1 : 0)));
}
