/** A dev-chain producer with real datadirs, served over real HTTP on 127.0.0.1, for the sync tests. */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { parseGenesis, type Genesis } from '../../../core/chain/genesis/index.ts';
import { signTransaction } from '../../../core/chain/transaction/index.ts';
import { ChainService } from '../../../core/chainService/chainService.ts';
import { devAccounts, devGenesisJson, type DevAccount } from '../../../core/node/dev/devChain.ts';
import { hexToBytes } from '../../../core/primitives/hex.ts';
import { createSyncRoutes } from '../../../core/sync/serving/routes.ts';
import { storeServingSource, type StoreServingSource } from '../../../core/sync/serving/storeServingSource.ts';
import type { BlockServingSource } from '../../../core/sync/serving/interface.ts';

export const accounts: DevAccount[] = devAccounts(3);
export const genesis: Genesis = parseGenesis(devGenesisJson(accounts));
export const signerKey = hexToBytes(accounts[0].privateKey);

/** A signed transfer from account 1 to account 2. */
export function transfer(nonce: bigint): { raw: Uint8Array; sender: Uint8Array; hash: Uint8Array } {
  const tx = signTransaction(
    {
      type: 2,
      chainId: 1337n,
      nonce,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1n,
      gasLimit: 21_000n,
      to: hexToBytes(accounts[2].address),
      value: 5n,
      data: new Uint8Array(0),
    },
    hexToBytes(accounts[1].privateKey),
  );
  return { raw: tx.raw, sender: hexToBytes(accounts[1].address), hash: tx.hash };
}

/** A producer: its chain service, its serving source and what reached its submitTx. */
export interface Producer {
  service: ChainService;
  source: StoreServingSource;
  submitted: Uint8Array[];
  /** Produces `n` blocks (every `txEvery`-th with `txsPerBlock` transfers) and announces each. */
  produce(n: number, opts?: { txEvery?: number; txsPerBlock?: number }): Promise<void>;
}

/** Opens a producer on `datadir` (optionally another genesis or signer). */
export function openProducer(datadir: string, g: Genesis = genesis, key: Uint8Array = signerKey): Producer {
  const service = ChainService.open({ datadir, genesis: g, batch: 0, signerKey: key });
  const submitted: Uint8Array[] = [];
  const source = storeServingSource({
    reader: service.store,
    chainId: g.config.chainId,
    submitTx: async (raw) => {
      if (submitted.some((s) => Buffer.compare(s, raw) === 0)) throw new Error('already known');
      submitted.push(raw);
      return new Uint8Array(32).fill(7);
    },
  });
  let nonce = 0n;
  return {
    service,
    source,
    submitted,
    async produce(n, { txEvery = 0, txsPerBlock = 1 } = {}) {
      for (let i = 0; i < n; i++) {
        const parent = service.head();
        const txs =
          txEvery > 0 && (Number(parent.number) + 1) % txEvery === 0 ? Array.from({ length: txsPerBlock }, () => transfer(nonce++)) : [];
        const { head } = await service.produce({ txs, timestamp: parent.header.timestamp + 2n });
        source.announce({ number: head.number, hash: head.hash });
      }
    },
  };
}

/** A running HTTP server and its base URL. */
export interface Served {
  url: string;
  close(): Promise<void>;
}

/** Serves `source` under /xone/v1 on 127.0.0.1 (an ephemeral port); `before` may add fault routes first. */
export async function serveSource(source: BlockServingSource, before?: (app: Hono) => void, keepAliveMs?: number): Promise<Served> {
  const app = new Hono();
  before?.(app);
  app.route('/xone/v1', createSyncRoutes({ source, ...(keepAliveMs ? { keepAliveMs } : {}) }));
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** Waits until `cond()` holds, polling every 20 ms, or throws after `ms`. */
export async function until(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
