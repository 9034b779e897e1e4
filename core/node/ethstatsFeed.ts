/**
 * Feeds the node's chain to the ethstats reporter (`xone run --ethstats name:secret@host:port`): each new head with the
 * pool's pending count and the node stats, and the blocks of a history request read from the store. The reporter runs
 * on its own worker thread; this side only posts messages, so a slow server never delays block import.
 */
import { EthstatsReporter, type EthstatsBlock, type EthstatsNodeStats } from '../ethstats/index.ts';
import type { Logger } from '../log/types.ts';
import { bytesToHex } from '../primitives/hex.ts';
import type { BlockData } from '../rpc/encode/types.ts';
import { CLIENT_IDENTITY, CLIENT_VERSION } from '../version.ts';
import type { StoreChainView } from '../rpcBackend/chainView.ts';

/** What the feed reads from the node: blocks from the store (the RPC's chain view), the pool size, the gas price. */
export interface EthstatsFeedSource {
  chainId: bigint;
  /** The port reported in the login (the node has no P2P port: its JSON-RPC port). */
  port: number;
  mining: boolean;
  chain: Pick<StoreChainView, 'getHeaderByNumber' | 'getBlockByHash' | 'head' | 'suggestTip'>;
  pool: { status(): { pending: number } };
}

function blockByNumber(chain: EthstatsFeedSource['chain'], n: number): BlockData | null {
  const h = chain.getHeaderByNumber(BigInt(n));
  return h ? chain.getBlockByHash(h.hash) : null;
}

/** An ethstats block from the store's block (geth's shape: numbers as numbers, TD as a decimal string). */
function toEthstatsBlock(b: BlockData): EthstatsBlock {
  const h = b.header;
  return {
    number: Number(h.number),
    hash: bytesToHex(h.hash),
    parentHash: bytesToHex(h.parentHash),
    timestamp: Number(h.timestamp),
    miner: bytesToHex(h.coinbase),
    gasUsed: Number(h.gasUsed),
    gasLimit: Number(h.gasLimit),
    difficulty: h.difficulty.toString(),
    totalDifficulty: (b.totalDifficulty ?? 0n).toString(),
    transactions: b.transactions.map((t) => ({ hash: bytesToHex(t.hash) })),
    transactionsRoot: bytesToHex(h.transactionsRoot),
    stateRoot: bytesToHex(h.stateRoot),
    uncles: [],
  };
}

/** The running feed; `close()` ends the connection (1001) and the worker. Registered with the node's lifecycle. */
export class EthstatsFeed {
  private constructor(
    private readonly reporter: EthstatsReporter,
    private readonly source: EthstatsFeedSource,
  ) {}

  /** Parses the URL (a bad value fails startup with EthstatsError), starts the worker and reports the current head. */
  static async start(url: string, source: EthstatsFeedSource, logger: Logger, head: Uint8Array): Promise<EthstatsFeed> {
    const reporter = new EthstatsReporter(
      url,
      {
        node: CLIENT_IDENTITY,
        port: source.port,
        net: source.chainId.toString(),
        protocol: 'xone/1',
        api: 'No',
        os: process.platform,
        os_v: process.arch,
        client: CLIENT_VERSION,
        canUpdateHistory: true,
      },
      {
        history: (numbers) =>
          numbers.flatMap((n) => {
            const b = blockByNumber(source.chain, n);
            return b ? [toEthstatsBlock(b)] : [];
          }),
        onState: (state, detail) => logger.debug('ethstats', { state, ...(detail ? { detail } : {}) }),
        log: (level, msg, meta) => logger[level](msg, meta ?? {}),
      },
    );
    await reporter.init();
    const feed = new EthstatsFeed(reporter, source);
    feed.onHead(head);
    return feed;
  }

  /** A new canonical head: its block, then the pool's pending count and the stats (both change with each head). */
  onHead(hash: Uint8Array): void {
    // Read back from the store like an RPC client would; a head not yet visible to the reader is reported next time.
    const block = this.source.chain.getBlockByHash(hash);
    if (block) this.reporter.head(toEthstatsBlock(block));
    this.reporter.pending(this.source.pool.status().pending);
    this.reporter.stats(this.stats());
  }

  private stats(): EthstatsNodeStats {
    // No P2P layer and no proof of work: peers 0, hashrate 0; `syncing` false (the node serves its own head).
    return {
      active: true,
      syncing: false,
      mining: this.source.mining,
      hashrate: 0,
      peers: 0,
      gasPrice: Number(this.gasPrice()),
      uptime: 100,
    };
  }

  /** eth_gasPrice's answer: the suggested tip plus the head's base fee. */
  private gasPrice(): bigint {
    const chain = this.source.chain;
    return chain.suggestTip() + (chain.head().baseFeePerGas ?? 0n);
  }

  close(): Promise<void> {
    return this.reporter.close();
  }
}
