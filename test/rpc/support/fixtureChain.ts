/**
 * The RPC tests' fixture chain, built on a real node (support/realNode.ts) by sending real signed transactions
 * (signed by ethers, an encoder independent of ours) and sealing each block as evm_mine does:
 *   block 1: three contract creations (EMITTER, REVERTER, ANSWER), then MANY_LOGS
 *   block 2: a legacy transfer and an EIP-1559 transfer
 *   block 3: a call that emits a log (and stores the block number), a call that reverts (status 0)
 *   block 4: a legacy call that emits a log
 * Every block's transactions are checked to be exactly the ones sent, in the order sent (the pool orders by tip,
 * ties by arrival; the fixture sends one at a time with falling tips).
 */
import { Transaction, Wallet, getCreateAddress, id as keccakText } from 'ethers';
import { devAccounts } from '../../../core/node/dev/devChain.ts';
import type { RealNode } from './realNode.ts';

export const CHAIN_ID = 1337n;
/**
 * Fee cap of every fixture transaction (plus its tip): 10 gwei, ten times the dev chain's starting base fee, which
 * nearly empty blocks only lower, so each one is always includable.
 */
export const MAX_FEE = 10_000_000_000n;
/** Dev accounts 1..3 (account 0 signs the blocks; it sends nothing here so its nonce stays 0). */
export const WALLETS = devAccounts()
  .slice(1, 4)
  .map((a) => new Wallet(a.privateKey));
export const ADDRESSES = WALLETS.map((w) => w.address.toLowerCase());
export const PING_TOPIC = keccakText('Ping()');
export const MANY_TOPIC = keccakText('Many()');

const hex = (s: string) => s.replace(/^0x/, '');
/** Creation code returning `runtime` (PUSH1 len DUP1 PUSH1 11 PUSH1 0 CODECOPY PUSH1 0 RETURN, then the runtime). */
export const creationCode = (runtime: string): string => {
  const len = hex(runtime).length / 2;
  if (len > 255) throw new Error('runtime too long for a PUSH1 length');
  return '0x60' + len.toString(16).padStart(2, '0') + '80600b6000396000f3' + hex(runtime);
};

/** SSTORE(0, NUMBER), MSTORE(0, 42), LOG1(0, 32, Ping()), STOP. */
export const EMITTER_CODE = '0x43600055602a6000527f' + hex(PING_TOPIC) + '60206000a100';
/** REVERT with Error("nope"). */
export const REVERTER_CODE =
  '0x7f08c379a0' + '00'.repeat(28) + '600052' + '6020600452' + '6004602452' + '7f6e6f7065' + '00'.repeat(28) + '604452' + '60646000fd';
/** Returns the word 42. */
export const ANSWER_CODE = '0x602a60005260206000f3';
/** Emits calldataload(0) logs LOG1(0, 0, Many()) in a loop. */
export const MANY_LOGS_CODE =
  // PUSH1 0 CALLDATALOAD; loop (pc 3): JUMPDEST DUP1 ISZERO PUSH1 54 JUMPI; PUSH32 topic PUSH1 0 PUSH1 0 LOG1;
  // PUSH1 1 SWAP1 SUB PUSH1 3 JUMP; end (pc 54): JUMPDEST STOP.
  '0x600035' + '5b8015603657' + '7f' + hex(MANY_TOPIC) + '60006000a1' + '60019003600356' + '5b00';

/** One transaction of the fixture as sent. */
export interface SentTx {
  hash: string;
  raw: string;
  from: string;
  to: string | null;
  type: 0 | 2;
  nonce: number;
}

export interface FixtureChain {
  emitter: string;
  reverter: string;
  answer: string;
  manyLogs: string;
  /** Transactions sent for blocks 1..4, by block number. */
  blocks: Map<number, SentTx[]>;
}

export interface TxSpec {
  from: number;
  to: string | null;
  value?: bigint;
  data?: string;
  type?: 0 | 2;
  gasLimit?: bigint;
  /** Priority fee (1559); a legacy transaction pays MAX_FEE + tip per gas. */
  tip: bigint;
}

/** Signs and sends transactions from the fixture's wallets, tracking nonces. */
export class Sender {
  private readonly nonces = new Map<number, number>();

  constructor(private readonly n: RealNode) {}

  async nextNonce(from: number): Promise<number> {
    let nonce = this.nonces.get(from);
    if (nonce === undefined) nonce = Number(BigInt(await this.n.result<string>('eth_getTransactionCount', [ADDRESSES[from], 'pending'])));
    this.nonces.set(from, nonce + 1);
    return nonce;
  }

  /** Signs `spec` (legacy or 1559) with the next nonce and sends it; resolves once the pool took it. */
  async send(spec: TxSpec): Promise<SentTx> {
    const type = spec.type ?? 2;
    const nonce = await this.nextNonce(spec.from);
    const tx = Transaction.from({
      type,
      chainId: CHAIN_ID,
      nonce,
      gasLimit: spec.gasLimit ?? 200_000n,
      to: spec.to,
      value: spec.value ?? 0n,
      data: spec.data ?? '0x',
      ...(type === 2 ? { maxFeePerGas: MAX_FEE + spec.tip, maxPriorityFeePerGas: spec.tip } : { gasPrice: MAX_FEE + spec.tip }),
    });
    const signed = await WALLETS[spec.from].signTransaction(tx);
    const hash = await this.n.result<string>('eth_sendRawTransaction', [signed]);
    return { hash, raw: signed, from: ADDRESSES[spec.from], to: spec.to, type, nonce };
  }

  /**
   * Sends `specs` in order, seals one block (as evm_mine does), and checks it holds exactly those transactions, then
   * the already pending ones named in `pending` (lower tips go last).
   */
  async block(specs: TxSpec[], opts: { timestamp?: bigint; pending?: string[] } = {}): Promise<{ number: number; txs: SentTx[] }> {
    const txs: SentTx[] = [];
    for (const s of specs) txs.push(await this.send(s));
    await this.n.mine(opts.timestamp);
    const head = await this.n.result<{ number: string; transactions: string[] }>('eth_getBlockByNumber', ['latest', false]);
    const want = [...txs.map((t) => t.hash), ...(opts.pending ?? [])];
    if (JSON.stringify(head.transactions) !== JSON.stringify(want))
      throw new Error(`block ${head.number} holds ${JSON.stringify(head.transactions)}, expected ${JSON.stringify(want)}`);
    return { number: Number(head.number), txs };
  }
}

/** Builds blocks 1..4 described above on a fresh node (head 0). */
export async function buildFixtureChain(n: RealNode): Promise<FixtureChain> {
  if ((await n.result<string>('eth_blockNumber')) !== '0x0') throw new Error('the fixture chain needs a fresh node');
  const s = new Sender(n);
  const deployer = 2;
  const at = (nonce: number) => getCreateAddress({ from: ADDRESSES[deployer], nonce }).toLowerCase();
  const b1 = await s.block([
    { from: deployer, to: null, data: creationCode(EMITTER_CODE), tip: 9n },
    { from: deployer, to: null, data: creationCode(REVERTER_CODE), tip: 9n },
    { from: deployer, to: null, data: creationCode(ANSWER_CODE), tip: 9n },
    { from: deployer, to: null, data: creationCode(MANY_LOGS_CODE), tip: 9n },
  ]);
  const [emitter, reverter, answer, manyLogs] = b1.txs.map((t) => at(t.nonce));
  const b2 = await s.block([
    { from: 0, to: ADDRESSES[1], value: 1000n, type: 0, gasLimit: 21_000n, tip: 1_000_000_000n },
    { from: 1, to: ADDRESSES[2], value: 5n, type: 2, gasLimit: 21_000n, tip: 2n },
  ]);
  const b3 = await s.block([
    { from: 0, to: emitter, type: 2, tip: 3n },
    { from: 2, to: reverter, type: 2, tip: 2n },
  ]);
  const b4 = await s.block([{ from: 1, to: emitter, type: 0, tip: 1n }]);
  return {
    emitter,
    reverter,
    answer,
    manyLogs,
    blocks: new Map([b1, b2, b3, b4].map((b) => [b.number, b.txs])),
  };
}

/** 32-byte calldata word of `n` (the MANY_LOGS contract's log count). */
export const word = (n: number): string => '0x' + n.toString(16).padStart(64, '0');
