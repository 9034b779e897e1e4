/**
 * Builds a small real chain in memory for the RPC tests: transactions signed with real keys (ethers), contract
 * calls executed by a real EVM (@ethereumjs/evm), receipts with real logs and blooms, London headers RLP-encoded
 * and hashed with keccak-256, EIP-1559 base fees by the real rule. Roots are keccak digests of the encodings
 * (no trie here: the RPC layer never checks roots).
 */
import { createEVM, type EVM } from '@ethereumjs/evm';
import { SigningKey, Transaction, computeAddress } from 'ethers';
import { type BlockData, type HeaderData, type LogData, type ReceiptData, type TransactionData } from '../../../core/rpc/encode/types.ts';
import { bigIntToBytes, concatBytes, hexToBytes } from '../../../core/primitives/hex.ts';
import { keccak256 } from '../../../core/primitives/keccak.ts';
import { encodeRlp, encodeRlpListOfEncoded } from '../../../core/primitives/rlp.ts';

export const CHAIN_ID = 1337n;
export const KEYS = ['0x' + '11'.repeat(32), '0x' + '22'.repeat(32), '0x' + '33'.repeat(32)].map((k) => new SigningKey(k));
export const ADDRESSES = KEYS.map((k) => hexToBytes(computeAddress(k)));
/** A contract that emits LOG1(topic = keccak("Ping()")) with 32 bytes of data. */
export const EMITTER = hexToBytes('0x' + 'ee'.repeat(20));
export const PING_TOPIC = keccak256(new TextEncoder().encode('Ping()'));
/** A contract that reverts with Error("nope"). */
export const REVERTER = hexToBytes('0x' + 'dd'.repeat(20));
/** A contract that returns 42. */
export const ANSWER = hexToBytes('0x' + 'aa'.repeat(20));
const hexCode = (h: string) => hexToBytes('0x' + h);
export const CODE: ReadonlyMap<string, Uint8Array> = new Map([
  [Buffer.from(EMITTER).toString('hex'), hexCode('602a6000527f' + Buffer.from(PING_TOPIC).toString('hex') + '60206000a100')],
  [
    Buffer.from(REVERTER).toString('hex'),
    hexCode(
      '7f08c379a0' + '00'.repeat(28) + '600052' + '6020600452' + '6004602452' + '7f6e6f7065' + '00'.repeat(28) + '604452' + '60646000fd',
    ),
  ],
  [Buffer.from(ANSWER).toString('hex'), hexCode('602a60005260206000f3')],
]);

export interface Account {
  balance: bigint;
  nonce: bigint;
}

export interface BuiltBlock {
  block: BlockData;
  receipts: ReceiptData[];
  raw: Uint8Array;
  rawHeader: Uint8Array;
  rawReceipts: Uint8Array[];
  rawTxs: Uint8Array[];
  /** Account state after the block (copy). */
  state: Map<string, Account>;
}

export interface TxSpec {
  from: number;
  to: Uint8Array | null;
  value?: bigint;
  data?: Uint8Array;
  type?: 0 | 2;
  gasLimit?: bigint;
}

const key = (a: Uint8Array) => Buffer.from(a).toString('hex');
const n = (v: bigint | number) => bigIntToBytes(v);

/** 2048-bit logs bloom (yellow paper M3:2048). */
export function bloomOf(logs: { address: Uint8Array; topics: Uint8Array[] }[]): Uint8Array {
  const bloom = new Uint8Array(256);
  for (const l of logs) {
    for (const item of [l.address, ...l.topics]) {
      const h = keccak256(item);
      for (let i = 0; i < 6; i += 2) {
        const bit = ((h[i] << 8) | h[i + 1]) & 2047;
        bloom[255 - (bit >> 3)] |= 1 << (bit & 7);
      }
    }
  }
  return bloom;
}

/** EIP-1559 base fee of the child of a block. */
export function nextBaseFee(parent: HeaderData): bigint {
  const base = parent.baseFeePerGas ?? 1_000_000_000n;
  const target = parent.gasLimit / 2n;
  if (parent.gasUsed === target) return base;
  if (parent.gasUsed > target) {
    const delta = (base * (parent.gasUsed - target)) / target / 8n;
    return base + (delta > 1n ? delta : 1n);
  }
  return base - (base * (target - parent.gasUsed)) / target / 8n;
}

function headerRlp(h: HeaderData): Uint8Array {
  return encodeRlp([
    h.parentHash,
    h.uncleHash,
    h.coinbase,
    h.stateRoot,
    h.transactionsRoot,
    h.receiptsRoot,
    h.logsBloom,
    n(h.difficulty),
    n(h.number),
    n(h.gasLimit),
    n(h.gasUsed),
    n(h.timestamp),
    h.extraData,
    h.mixHash,
    h.nonce,
    n(h.baseFeePerGas ?? 0n),
  ]);
}

export class ChainBuilder {
  readonly blocks: BuiltBlock[] = [];
  private state = new Map<string, Account>();
  private evm: EVM | undefined;

  constructor(readonly genesisTime = 1_700_000_000n) {
    for (const a of ADDRESSES) this.state.set(key(a), { balance: 10n ** 24n, nonce: 0n });
  }

  nonceOf(a: Uint8Array): bigint {
    return this.state.get(key(a))?.nonce ?? 0n;
  }

  /** Signs a transaction as the builder's key `spec.from` would, with the next nonce. */
  sign(spec: TxSpec, nonce: bigint, baseFee: bigint): { tx: TransactionData; raw: Uint8Array } {
    const k = KEYS[spec.from];
    const type = spec.type ?? 2;
    const t = Transaction.from({
      type,
      chainId: CHAIN_ID,
      nonce: Number(nonce),
      gasLimit: spec.gasLimit ?? 100_000n,
      to: spec.to ? '0x' + key(spec.to) : null,
      value: spec.value ?? 0n,
      data: '0x' + key(spec.data ?? new Uint8Array()),
      ...(type === 2 ? { maxFeePerGas: baseFee * 2n + 2n, maxPriorityFeePerGas: 2n } : { gasPrice: baseFee + 1n }),
    });
    t.signature = k.sign(t.unsignedHash);
    const sig = t.signature;
    const raw = hexToBytes(t.serialized);
    const tx: TransactionData = {
      type,
      hash: keccak256(raw),
      from: ADDRESSES[spec.from],
      to: spec.to,
      nonce,
      gasLimit: t.gasLimit,
      value: t.value,
      data: spec.data ?? new Uint8Array(),
      chainId: CHAIN_ID,
      v: type === 0 ? CHAIN_ID * 2n + 35n + BigInt(sig.yParity) : BigInt(sig.yParity),
      r: BigInt(sig.r),
      s: BigInt(sig.s),
    };
    if (type === 2) {
      tx.maxFeePerGas = t.maxFeePerGas as bigint;
      tx.maxPriorityFeePerGas = t.maxPriorityFeePerGas as bigint;
      tx.accessList = [];
    } else tx.gasPrice = t.gasPrice as bigint;
    return { tx, raw };
  }

  /** Appends a block with the given transactions (executed in order). */
  async addBlock(specs: TxSpec[]): Promise<BuiltBlock> {
    this.evm ??= await createEVM();
    const parent = this.blocks.at(-1)?.block.header;
    const number = parent ? parent.number + 1n : 0n;
    const baseFee = parent ? nextBaseFee(parent) : 1_000_000_000n;
    const txs: TransactionData[] = [];
    const rawTxs: Uint8Array[] = [];
    const partial: Omit<ReceiptData, 'blockHash'>[] = [];
    let cumulative = 0n;
    let logIndex = 0;
    const blockLogs: Omit<LogData, 'blockHash'>[] = [];
    for (const spec of specs) {
      const from = this.state.get(key(ADDRESSES[spec.from]))!;
      const { tx, raw } = this.sign(spec, from.nonce, baseFee);
      let gasUsed = 21_000n;
      let status = 1;
      const logs: Omit<LogData, 'blockHash'>[] = [];
      const code = tx.to ? CODE.get(key(tx.to)) : undefined;
      if (code) {
        const res = await this.evm.runCode({ code, data: tx.data, gasLimit: tx.gasLimit - 21_000n });
        gasUsed += res.executionGasUsed;
        if (res.exceptionError) status = 0;
        else
          for (const [, topics, data] of res.logs ?? [])
            logs.push({
              address: tx.to!,
              topics,
              data,
              blockNumber: number,
              transactionHash: tx.hash,
              transactionIndex: txs.length,
              logIndex: logIndex++,
            });
      }
      const price = tx.maxFeePerGas !== undefined ? baseFee + tx.maxPriorityFeePerGas! : tx.gasPrice!;
      tx.effectiveGasPrice = price;
      from.nonce += 1n;
      from.balance -= gasUsed * price + (status ? tx.value : 0n);
      if (tx.to && status) {
        const to = this.state.get(key(tx.to)) ?? { balance: 0n, nonce: 0n };
        to.balance += tx.value;
        this.state.set(key(tx.to), to);
      }
      cumulative += gasUsed;
      partial.push({
        type: tx.type,
        status,
        cumulativeGasUsed: cumulative,
        gasUsed,
        effectiveGasPrice: price,
        logsBloom: bloomOf(logs),
        logs: logs as LogData[],
        transactionHash: tx.hash,
        transactionIndex: txs.length,
        blockNumber: number,
        from: tx.from,
        to: tx.to,
        contractAddress: null,
      });
      blockLogs.push(...logs);
      txs.push(tx);
      rawTxs.push(raw);
    }
    const rawReceipts = partial.map((r) => {
      const body = encodeRlp([n(r.status!), n(r.cumulativeGasUsed), r.logsBloom, r.logs.map((l) => [l.address, l.topics, l.data])]);
      return r.type === 0 ? body : concatBytes(Uint8Array.of(r.type), body);
    });
    const header: HeaderData = {
      hash: new Uint8Array(32),
      parentHash: parent?.hash ?? new Uint8Array(32),
      uncleHash: keccak256(encodeRlp([])),
      coinbase: new Uint8Array(20),
      stateRoot: keccak256(
        new TextEncoder().encode(JSON.stringify([...this.state].map(([k, v]) => [k, String(v.balance), String(v.nonce)]))),
      ),
      transactionsRoot: keccak256(concatBytes(...rawTxs)),
      receiptsRoot: keccak256(concatBytes(...rawReceipts)),
      logsBloom: bloomOf(blockLogs),
      difficulty: 2n,
      number,
      gasLimit: 30_000_000n,
      gasUsed: cumulative,
      timestamp: this.genesisTime + number * 2n,
      extraData: new Uint8Array(32),
      mixHash: new Uint8Array(32),
      nonce: new Uint8Array(8),
      baseFeePerGas: baseFee,
    };
    const rawHeader = headerRlp(header);
    header.hash = keccak256(rawHeader);
    const raw = encodeRlpListOfEncoded([
      rawHeader,
      encodeRlpListOfEncoded(rawTxs.map((t, i) => (txs[i].type === 0 ? t : encodeRlp(t)))),
      encodeRlp([]),
    ]);
    const receipts = partial.map((r) => ({ ...r, blockHash: header.hash, logs: r.logs.map((l) => ({ ...l, blockHash: header.hash })) }));
    const built: BuiltBlock = {
      block: { header, transactions: txs, uncles: [], size: BigInt(raw.length) },
      receipts,
      raw,
      rawHeader,
      rawReceipts,
      rawTxs,
      state: new Map([...this.state].map(([k, v]) => [k, { ...v }])),
    };
    this.blocks.push(built);
    return built;
  }
}
