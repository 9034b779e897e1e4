/**
 * One @ethereumjs/evm instance per (chain, fork), reused across blocks: building an EVM sets up opcode and precompile
 * tables, so the executor keeps them and only swaps the state and block context underneath.
 */
import { EVM, getActivePrecompiles, type EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import type { Fork } from '../chain/forks.ts';
import type { JournaledState } from '../state/journaledState.ts';
import { keccak256 } from '../primitives/keccak.ts';
import { sha256 } from '../primitives/sha256.ts';
import { commonFor } from './hardfork.ts';
import { blake2fPrecompile } from './evm/blake2fPrecompile.ts';
import { bn254PairingSize, GethBN254 } from './evm/bn254Checks.ts';
import { enableFastInterpreter } from './evm/fastInterpreter.ts';
import { bls, kzg } from './evm/precompileCrypto.ts';
import { EvmStateManager } from './evmStateManager.ts';
import type { BlockEnv } from './types.ts';

const BLAKE2F_ADDRESS = '0000000000000000000000000000000000000009';
const BN254_PAIRING_ADDRESS = '0000000000000000000000000000000000000008';

/** The block object shape @ethereumjs/evm reads (types.d.ts `Block`). */
export interface EvmBlock {
  header: {
    number: bigint;
    coinbase: Address;
    timestamp: bigint;
    difficulty: bigint;
    prevRandao: Uint8Array;
    gasLimit: bigint;
    baseFeePerGas?: bigint;
    getBlobGasPrice(): bigint | undefined;
  };
}

/** An EVM bound to a swappable state and block context. */
export class EvmHost {
  readonly evm: EVM;
  readonly stateManager: EvmStateManager;
  private env: BlockEnv | undefined;
  /** Addresses (unprefixed hex) where a precompile runs in this EVM: the fork's, after any eth_simulateV1 moves. */
  readonly precompiles: ReadonlySet<string>;
  /**
   * Addresses (unprefixed hex) every transaction starts with warm (EIP-2929): the fork's precompiles whatever a state
   * override or a move did to them, as geth's StateDB.Prepare takes vm.ActivePrecompiles(rules), not the EVM's table.
   */
  readonly warmPrecompiles: ReadonlySet<string>;

  /**
   * `libraryLoop`: keep @ethereumjs/evm's own interpreter loop, which emits a `step` event per opcode (tracing: the
   * fast loop of decision 0027 emits none).
   */
  constructor(
    chainId: bigint,
    fork: Fork,
    initialState: JournaledState,
    {
      libraryLoop = false,
      precompileMoves,
    }: {
      libraryLoop?: boolean;
      /**
       * eth_simulateV1's movePrecompileToAddress: precompile address -> where it runs instead (unprefixed hex), or
       * REMOVED_PRECOMPILE when it no longer runs anywhere.
       */
      precompileMoves?: ReadonlyMap<string, string>;
    } = {},
  ) {
    this.stateManager = new EvmStateManager(initialState);
    const blockchain: EVMMockBlockchainInterface = {
      getBlock: async (n: number) => {
        const hash = this.env?.blockHash(BigInt(n));
        return { hash: () => hash ?? new Uint8Array(32) };
      },
      putBlock: async () => {},
      shallowCopy: () => blockchain,
    };
    const common = commonFor(chainId, fork);
    // KECCAK256 through our hash-wasm keccak (decision 0003) instead of the library's @noble/hashes default.
    common.customCrypto.keccak256 ??= keccak256;
    // SHA-256 (precompile 0x02) on node:crypto, ~10x the library's @noble/hashes default on 50 KB inputs.
    common.customCrypto.sha256 ??= sha256;
    common.customCrypto.kzg ??= kzg;
    const customPrecompiles = precompileMoves?.size ? movedPrecompiles(common, precompileMoves) : undefined;
    this.evm = new EVM({
      common,
      stateManager: this.stateManager,
      blockchain,
      // geth's point checks and failure texts for 0x06-0x08 (bn254Checks.ts).
      bn254: new GethBN254(),
      bls,
      ...(customPrecompiles ? { customPrecompiles } : {}),
    });
    useOwnPrecompiles(this.evm, common);
    // Decision 0027: the library's loop and frame runner cost more than the opcodes on contract calls.
    if (!libraryLoop) enableFastInterpreter(this.evm);
    this.precompiles = new Set([...this.evm.precompiles].filter(([, fn]) => fn !== undefined).map(([addr]) => addr));
    this.warmPrecompiles = precompileMoves?.size ? precompileAddresses(chainId, fork) : this.precompiles;
  }

  /** Points the EVM at `state` and block `env` for the next transactions. */
  bind(state: JournaledState, env: BlockEnv): EvmBlock {
    this.stateManager.state = state;
    this.env = env;
    return {
      header: {
        number: env.number,
        coinbase: new Address(env.coinbase),
        timestamp: env.timestamp,
        difficulty: env.difficulty,
        prevRandao: env.prevRandao,
        gasLimit: env.gasLimit,
        baseFeePerGas: env.baseFee,
        getBlobGasPrice: () => env.blobBaseFee,
      },
    };
  }
}

/** Caches one `EvmHost` per (chainId, fork). Owned by an executor, not global. */
export class EvmHostCache {
  private readonly hosts = new Map<string, EvmHost>();

  get(chainId: bigint, fork: Fork, state: JournaledState): EvmHost {
    const key = `${chainId}:${fork}`;
    let host = this.hosts.get(key);
    if (host === undefined) {
      host = new EvmHost(chainId, fork, state);
      this.hosts.set(key, host);
    }
    return host;
  }
}

/**
 * Ours wherever this EVM runs the library's precompile, at its address or where eth_simulateV1 moved it: BLAKE2F
 * on our WebAssembly F (evm/blake2fPrecompile.ts, issue #18; same checks, gas and output), and the BN254 pairing's
 * size check with geth's text (evm/bn254Checks.ts, issue #15).
 */
function useOwnPrecompiles(evm: EVM, common: ReturnType<typeof commonFor>): void {
  const active = getActivePrecompiles(common);
  const blake2f = active.get(BLAKE2F_ADDRESS);
  const pairing = active.get(BN254_PAIRING_ADDRESS);
  for (const [address, fn] of evm.precompiles) {
    if (fn !== undefined && fn === blake2f) evm.precompiles.set(address, blake2fPrecompile as unknown as typeof fn);
    if (fn !== undefined && fn === pairing) evm.precompiles.set(address, bn254PairingSize(fn as never) as unknown as typeof fn);
  }
}

/** A `precompileMoves` target meaning "nowhere": the precompile is gone (a state override of its address). */
export const REMOVED_PRECOMPILE = '';

const precompilesByFork = new Map<string, ReadonlySet<string>>();

/** The precompile addresses (unprefixed lower-case hex) active under `fork`. */
export function precompileAddresses(chainId: bigint, fork: Fork): ReadonlySet<string> {
  let set = precompilesByFork.get(fork);
  if (set === undefined) {
    set = new Set(getActivePrecompiles(commonFor(chainId, fork)).keys());
    precompilesByFork.set(fork, set);
  }
  return set;
}

/** The library's custom precompiles for `moves`: each precompile added at its new address and removed from its old. */
function movedPrecompiles(common: ReturnType<typeof commonFor>, moves: ReadonlyMap<string, string>) {
  const active = getActivePrecompiles(common);
  const out: ({ address: Address; function: NonNullable<ReturnType<typeof active.get>> } | { address: Address })[] = [];
  for (const [from, to] of moves) {
    const fn = active.get(from);
    if (fn !== undefined && to !== REMOVED_PRECOMPILE) out.push({ address: new Address(Buffer.from(to, 'hex')), function: fn });
  }
  for (const [from] of moves) if (![...moves.values()].includes(from)) out.push({ address: new Address(Buffer.from(from, 'hex')) });
  return out;
}
