/**
 * The dev chain's node-held accounts (AccountsView): the dev mnemonic's keys, plus addresses impersonated with
 * anvil_impersonateAccount (or all of them with anvil_autoImpersonateAccount) for sending. eth_sendTransaction fills
 * what the request leaves out as geth's TransactionArgs.setDefaults does: nonce from the pool, fees from the tip
 * oracle (maxFeePerGas = tip + 2 x the head's base fee; legacy gasPrice = tip + base fee), gas from eth_estimateGas.
 */
import { TypedData } from 'ox';
import { isForkActive, forkAt, type ChainConfig } from '../chain/forks.ts';
import { impersonatedTransaction, signTransaction, type Transaction, type UnsignedTransaction } from '../chain/transaction/index.ts';
import { bytesToHex, concatBytes, hexToBytes } from '../primitives/hex.ts';
import { keccak256 } from '../primitives/keccak.ts';
import { defaultSecp256k1 } from '../primitives/secp256k1/index.ts';
import { RpcError } from '../rpc/errors.ts';
import type { AccountsView, CallRequest, ChainView, ExecutionView, TxPoolView } from '../rpc/interface.ts';
import { revertError } from '../rpc/revert.ts';

export interface DevAccountsDeps {
  config: ChainConfig;
  chain: ChainView;
  exec: ExecutionView;
  txpool: TxPoolView;
  /** Hands a transaction with its known sender to the pool (no recovery: impersonated ones have no real signature). */
  submit(tx: Transaction, sender: Uint8Array): Promise<Uint8Array>;
  gasCap: bigint;
}

const encoder = new TextEncoder();
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export class DevAccounts implements AccountsView {
  private readonly keys = new Map<string, Uint8Array>();
  private readonly order: Uint8Array[] = [];
  private readonly impersonated = new Set<string>();
  private auto = false;

  constructor(
    privateKeys: readonly Uint8Array[],
    addresses: readonly Uint8Array[],
    private readonly deps: DevAccountsDeps,
  ) {
    privateKeys.forEach((k, i) => {
      this.keys.set(hex(addresses[i]), k);
      this.order.push(addresses[i]);
    });
  }

  accounts(): Uint8Array[] {
    return [...this.order];
  }

  impersonate(address: Uint8Array, on: boolean): void {
    if (on) this.impersonated.add(hex(address));
    else this.impersonated.delete(hex(address));
  }

  autoImpersonate(on: boolean): void {
    this.auto = on;
  }

  /** Forgets impersonations (anvil_reset). */
  reset(): void {
    this.impersonated.clear();
    this.auto = false;
  }

  async sendTransaction(req: CallRequest): Promise<Uint8Array> {
    const { unsigned, from } = await this.fill(req);
    const key = this.keys.get(hex(from));
    const tx = key ? signTransaction(unsigned, key) : impersonatedTransaction(unsigned, from);
    return this.deps.submit(tx, from);
  }

  /** anvil's eth_sendUnsignedTransaction: sent from `from` without a signature, impersonated or not. */
  async sendUnsignedTransaction(req: CallRequest): Promise<Uint8Array> {
    const { unsigned, from } = await this.fill(req, false, true);
    return this.deps.submit(impersonatedTransaction(unsigned, from), from);
  }

  async signTransaction(req: CallRequest): Promise<Uint8Array> {
    const { unsigned, from } = await this.fill(req, true);
    return signTransaction(unsigned, this.keyOf(from)).raw;
  }

  async signMessage(address: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
    const prefix = encoder.encode(`\x19Ethereum Signed Message:\n${message.length}`);
    return this.signDigest(address, keccak256(concatBytes(prefix, message)));
  }

  async signTypedData(address: Uint8Array, typedData: unknown): Promise<Uint8Array> {
    let payload: string;
    try {
      payload = TypedData.getSignPayload(typedData as TypedData.encode.Value);
    } catch (err) {
      throw new RpcError('INVALID_PARAMS', `invalid argument 1: ${(err as Error).message.split('\n')[0]}`);
    }
    return this.signDigest(address, hexToBytes(payload));
  }

  private signDigest(address: Uint8Array, digest: Uint8Array): Uint8Array {
    const sig = defaultSecp256k1().sign(digest, this.keyOf(address));
    const out = new Uint8Array(65);
    out.set(word(sig.r), 0);
    out.set(word(sig.s), 32);
    out[64] = 27 + sig.recovery;
    return out;
  }

  private keyOf(address: Uint8Array): Uint8Array {
    const key = this.keys.get(hex(address));
    if (key === undefined) throw new RpcError('SERVER_ERROR', `unknown account ${bytesToHex(address)}`);
    return key;
  }

  /** geth's setDefaults: every field the transaction needs, from the request or the node. */
  private async fill(req: CallRequest, mustHoldKey = false, anyFrom = false): Promise<{ unsigned: UnsignedTransaction; from: Uint8Array }> {
    const from = req.from ?? this.order[0];
    const fromHex = hex(from);
    const held = this.keys.has(fromHex);
    if (!held && !anyFrom && (mustHoldKey || !(this.auto || this.impersonated.has(fromHex))))
      throw new RpcError('SERVER_ERROR', `unknown account ${bytesToHex(from)}`);
    const chainId = this.deps.config.chainId;
    if (req.chainId !== undefined && req.chainId !== chainId)
      throw new RpcError('SERVER_ERROR', `chainId does not match node's (have=${req.chainId}, want=${chainId})`);
    if (req.to == null && (req.data === undefined || req.data.length === 0))
      throw new RpcError('SERVER_ERROR', 'contract creation without any data provided');
    const head = this.deps.chain.head();
    const next = forkAt(this.deps.config, Number(head.number + 1n), Math.floor(Date.now() / 1000));
    const london = isForkActive(next, 'London') && head.baseFeePerGas !== undefined;
    const legacy = !london || req.gasPrice !== undefined || req.type === 0 || req.type === 1;
    const fees: Pick<UnsignedTransaction, 'gasPrice' | 'maxFeePerGas' | 'maxPriorityFeePerGas'> = {};
    let type: UnsignedTransaction['type'];
    if (legacy) {
      type = req.accessList !== undefined || req.type === 1 ? 1 : 0;
      fees.gasPrice = req.gasPrice ?? (await this.deps.chain.suggestTip()) + (head.baseFeePerGas ?? 0n);
    } else {
      type = 2;
      const tip = req.maxPriorityFeePerGas ?? (await this.deps.chain.suggestTip());
      const cap = req.maxFeePerGas ?? tip + 2n * (head.baseFeePerGas ?? 0n);
      if (cap < tip) throw new RpcError('SERVER_ERROR', `maxFeePerGas (${cap}) < maxPriorityFeePerGas (${tip})`);
      fees.maxPriorityFeePerGas = tip;
      fees.maxFeePerGas = cap;
    }
    const nonce = req.nonce ?? (await this.deps.txpool.pendingNonce(from));
    let gasLimit = req.gas;
    if (gasLimit === undefined) {
      const probe: CallRequest = { ...req, from, nonce, ...fees };
      delete probe.gas;
      const est = await this.deps.exec.estimateGas(probe, head, {
        signal: AbortSignal.timeout(10_000),
        deadline: Date.now() + 10_000,
        client: 'node:dev-accounts',
        gasCap: this.deps.gasCap,
      });
      if (est.status === 'revert') throw revertError(est.returnData);
      if (est.status === 'error') throw new RpcError('SERVER_ERROR', est.error);
      gasLimit = est.gas;
    }
    return {
      from,
      unsigned: {
        type,
        chainId,
        nonce,
        ...fees,
        gasLimit,
        to: req.to ?? undefined,
        value: req.value ?? 0n,
        data: req.data ?? new Uint8Array(0),
        ...(type !== 0 ? { accessList: req.accessList ?? [] } : {}),
      },
    };
  }
}

function word(v: bigint): Uint8Array {
  return hexToBytes('0x' + v.toString(16).padStart(64, '0'));
}
